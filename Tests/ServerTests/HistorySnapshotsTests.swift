import AppStore
import Foundation
import Subscriptions
import Testing

@testable import Server
@_spi(StoreSQL) @testable import Storage
@testable import Tools

/// A purchase's history leaves out the transaction and renewal info of its newest fact when its
/// state holds the same snapshots (migration 17), and loading the purchase takes them back.
@Suite struct HistorySnapshotsTests {
    static let key = "s:\(PurchaseFactRowsTests.original)"

    /// The subscription the pure reducer holds after `order`'s notifications.
    static func pure(_ order: [Int]) throws -> SubscriptionState {
        var ledger = Ledger(configuration: try PurchaseFactRowsTests.app().ledger.configuration)
        for index in order {
            _ = ledger.apply(
                .notificationReceived(PurchaseFactRowsTests.facts(index)),
                at: Date(timeIntervalSince1970: Double(1_800_000_000_000 + index) / 1000))
        }
        return try #require(ledger.subscriptions[PurchaseFactRowsTests.original])
    }

    /// The purchase's row: state, history, and what the history left out.
    static func row(_ store: Store) throws -> (json: String, history: String, snapshots: String?) {
        let found = try store.read { (rows) throws(StoreError) in
            try rows.query("SELECT json, history, history_snapshots FROM purchases WHERE purchase_key = ?", [.text(key)])
        }
        let row = try #require(found.first)
        return (try #require(row[0].textValue), try #require(row[1].textValue), row[2].textValue)
    }

    @Test func aPurchasesRowHoldsItsSnapshotsOnce() throws {
        let app = try PurchaseFactRowsTests.app()
        for count in 1...3 {
            let directory = TestDirectory("history-snapshots-\(count)")
            let store = try Store(path: directory.path("revenuedot.sqlite"))
            defer { store.close() }
            let pure = try PurchaseFactRowsTests.apply(Array(0..<count), to: store, app: app)
            let written = try Self.row(store)
            let newest = try #require(pure.journal.facts.last)
            let id = try #require(newest.transaction?.transactionId)
            #expect(written.snapshots == "t,r")
            // The state holds the snapshots whole; the history holds neither.
            #expect(!written.history.contains("\"transaction\""))
            #expect(!written.history.contains("\"renewalInfo\""))
            #expect(written.json.contains(id))
            let journal = try LedgerRows.storedJournal(
                key: Self.key, json: written.json, history: written.history, snapshots: written.snapshots)
            #expect(journal.facts.last == newest)
            #expect(try PurchaseFactRowsTests.stored(store).journal == pure.journal)
        }
    }

    /// The bytes saved: the row holds what it held before, less the two snapshots.
    @Test func leavingOutSavesTheSnapshotsBytes() throws {
        let pure = try Self.pure([0])
        let whole = try LedgerRows.encode(pure.journal)
        let (kept, snapshots) = HistorySnapshots.leavingOut(of: pure.journal, keptBy: pure)
        let left = try LedgerRows.encode(kept)
        let newest = try #require(pure.journal.facts.last)
        let snapshotBytes =
            try LedgerRows.encode(try #require(newest.transaction)).utf8.count
            + LedgerRows.encode(try #require(newest.renewalInfo)).utf8.count
        #expect(whole.utf8.count - left.utf8.count > snapshotBytes)
        #expect(try HistorySnapshots.takingBack(into: kept, from: snapshots, keptBy: pure) == pure.journal)
    }

    /// Only snapshots equal to the state's are left out: a fact about an earlier period, or
    /// renewal info the state has replaced, keeps its own.
    @Test func snapshotsTheStateDoesNotHoldStayInTheHistory() throws {
        let pure = try Self.pure([0, 1])
        let older = PurchaseFact(PurchaseFactRowsTests.facts(0))
        let journal = pure.journal.replacingFacts([older])
        let (kept, snapshots) = HistorySnapshots.leavingOut(of: journal, keptBy: pure)
        #expect(snapshots == nil)
        #expect(kept == journal)
        // Several facts (a history written before migration 8): nothing is left out either.
        let several = pure.journal.replacingFacts([older, PurchaseFact(PurchaseFactRowsTests.facts(1))])
        #expect(HistorySnapshots.leavingOut(of: several, keptBy: pure).1 == nil)
    }

    /// A row naming snapshots its state does not hold, or that its history cannot take, is refused
    /// rather than loaded as a different purchase.
    @Test func aRowNamingWhatItsStateDoesNotHoldIsRefused() throws {
        let pure = try Self.pure([0])
        let (kept, _) = HistorySnapshots.leavingOut(of: pure.journal, keptBy: pure)
        for snapshots in ["t,t", "r,r", "transaction", "x", ""] {
            #expect(throws: HistorySnapshotsError.self, "\(snapshots)") {
                try HistorySnapshots.takingBack(into: kept, from: snapshots, keptBy: pure)
            }
        }
        // A fact that kept its own snapshot cannot be given the state's as well.
        #expect(throws: HistorySnapshotsError.self) {
            try HistorySnapshots.takingBack(into: pure.journal, from: "r", keptBy: pure)
        }
        #expect(throws: HistorySnapshotsError.self) {
            try HistorySnapshots.takingBack(into: PurchaseJournal(), from: "r", keptBy: pure)
        }
        #expect(try HistorySnapshots.takingBack(into: pure.journal, from: nil, keptBy: pure) == pure.journal)
    }

    /// Snapshots equal as values but not as bytes (a string in another Unicode normalization) are
    /// not left out: taking the state's back would change the fact's bytes.
    @Test func snapshotsEqualOnlyAsUnicodeStayInTheHistory() throws {
        var facts = PurchaseFactRowsTests.facts(0)
        facts.transaction?.productId = "pro.caf\u{E9}"
        var ledger = Ledger(configuration: try PurchaseFactRowsTests.app().ledger.configuration)
        _ = ledger.apply(.notificationReceived(facts), at: Date(timeIntervalSince1970: 1_800_000_000))
        let state = try #require(ledger.subscriptions[PurchaseFactRowsTests.original])
        #expect(HistorySnapshots.leavingOut(of: state.journal, keptBy: state).1 == "t,r")
        var newest = try #require(state.journal.facts.last)
        newest.transaction?.productId = "pro.cafe\u{301}"
        #expect(newest.transaction == state.currentTransaction)
        let journal = state.journal.replacingFacts([newest])
        let (kept, snapshots) = HistorySnapshots.leavingOut(of: journal, keptBy: state)
        #expect(snapshots == "r")
        #expect(kept.facts.last?.transaction?.productId?.utf8.elementsEqual("pro.cafe\u{301}".utf8) == true)
        #expect(try HistorySnapshots.takingBack(into: kept, from: snapshots, keptBy: state) == journal)
    }
}
