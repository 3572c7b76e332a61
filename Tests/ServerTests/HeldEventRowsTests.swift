import AppStore
import Foundation
import Subscriptions
import Testing

@testable import Server
@_spi(StoreSQL) @testable import Storage
@testable import Tools

/// A purchase nobody has claimed holds its events; beyond the newest they live in `held_events`
/// (migration 14), not in `purchases.history`. Stored, the purchase must still be exactly what
/// the pure reducer holds after the same inputs, and a claim must release every held event in
/// order, whichever way it comes.
@Suite struct HeldEventRowsTests {
    typealias Fixture = PurchaseFactRowsTests
    static let key = "s:\(Fixture.original)"

    /// Applies `inputs` through storage and to a pure ledger; returns the ledger and the effects
    /// of the last input on each side (the stored ones read back from `events`).
    static func run(_ inputs: [Ledger.Input], store: Store, app: AppConfig) throws -> (
        ledger: Ledger, pure: [Event], stored: [Event]
    ) {
        var ledger = Ledger(configuration: app.ledger.configuration)
        var pure: [Event] = []
        for (offset, input) in inputs.enumerated() {
            let at = Int64(1_800_000_000_000 + offset)
            try store.write { transaction in try LedgerInputs.apply(input, app: app.ledger, atMs: at, in: transaction) }
            pure = ledger.apply(input, at: Date(timeIntervalSince1970: Double(at) / 1000)).compactMap { effect in
                if case .emit(let event) = effect { return event }
                return nil
            }
        }
        let last = Int64(1_800_000_000_000 + inputs.count - 1)
        let rows = try store.read { (rows) throws(StoreError) in
            try rows.query("SELECT json FROM events WHERE created_at = ? ORDER BY position", [.integer(last)])
        }
        let stored = try rows.map { try LedgerRows.decode(Event.self, try #require($0[0].textValue)) }
        return (ledger, pure, stored)
    }

    /// The history as stored, the journal it holds, and the number of rows in `held_events` for the purchase.
    static func raw(_ store: Store) throws -> (history: String, journal: PurchaseJournal, rows: Int) {
        let (row, count) = try store.read { (rows) throws(StoreError) in
            (
                try rows.query("SELECT json, history, history_snapshots FROM purchases WHERE purchase_key = ?", [.text(key)])
                    .first,
                try rows.query("SELECT count(*) FROM held_events WHERE purchase_key = ?", [.text(key)]).first?.first?
                    .integerValue
            )
        }
        let found = try #require(row)
        let text = try #require(found[1].textValue)
        let journal = try LedgerRows.storedJournal(
            key: key, json: try #require(found[0].textValue), history: text, snapshots: found[2].textValue)
        return (text, journal, Int(count ?? 0))
    }

    static func notifications(_ range: Range<Int>) -> [Ledger.Input] {
        range.map { .notificationReceived(Fixture.facts($0)) }
    }

    @Test func anUnclaimedPurchaseKeepsItsNewestHeldEventInline() throws {
        let directory = TestDirectory("held-rows")
        var sizes: [Int] = []
        var ledger = Ledger()
        for count in [1, 2, 3, 12, 24] {
            let fresh = try Store(path: directory.path("n\(count).sqlite"))
            defer { fresh.close() }
            ledger = try Self.run(Self.notifications(0..<count), store: fresh, app: try Fixture.app()).ledger
            let pure = try #require(ledger.subscriptions[Fixture.original])
            #expect(pure.journal.ownerAppUserId == nil)
            let raw = try Self.raw(fresh)
            #expect(raw.journal.heldEvents.count <= HeldEventRows.inlineLimit)
            #expect(raw.rows == pure.journal.heldEvents.count - raw.journal.heldEvents.count)
            #expect(raw.journal.storedHeldEventCount == (raw.rows == 0 ? nil : raw.rows))
            #expect(try Fixture.stored(fresh).journal == pure.journal)
            sizes.append(raw.history.utf8.count)
        }
        #expect(ledger.subscriptions[Fixture.original]?.journal.heldEvents.count ?? 0 >= 23)
        // What still grows is the list of emitted event ids (under 50 bytes an event), not the events.
        #expect(sizes[4] - sizes[2] < 21 * 50, "history sizes \(sizes)")
    }

    enum Claim: String, CaseIterable, CustomTestStringConvertible {
        case posted, linked, appAccountToken
        /// The notifications carry dave's token before the app makes dave: none of them may claim
        /// (nor reads the held events back); the first after dave exists claims them all.
        case appAccountTokenOfACustomerMadeLater
        var testDescription: String { rawValue }

        var before: [Ledger.Input] {
            guard self == .appAccountTokenOfACustomerMadeLater else { return HeldEventRowsTests.notifications(0..<6) }
            return (0..<6).map { index in
                var facts = Fixture.facts(index)
                facts.transaction?.appAccountToken = "dave"
                return .notificationReceived(facts)
            }
        }

        var inputs: [Ledger.Input] {
            switch self {
            case .posted:
                var transaction = Fixture.facts(6).transaction!
                transaction.signedDate = (transaction.signedDate ?? 0) + 1
                return [.transactionPosted(transaction, appUserId: "dave")]
            case .linked:
                return [.linked(.subscription(originalTransactionId: Fixture.original), appUserId: "dave")]
            case .appAccountToken, .appAccountTokenOfACustomerMadeLater:
                var facts = Fixture.facts(6)
                facts.transaction?.appAccountToken = "dave"
                return [.linked(.oneTime(transactionId: "unrelated"), appUserId: "dave"), .notificationReceived(facts)]
            }
        }
    }

    @Test(arguments: Claim.allCases)
    func aClaimReleasesEveryHeldEventInOrder(claim: Claim) throws {
        let directory = TestDirectory("held-rows-claim")
        let store = try Store(path: directory.path("revenuedot.sqlite"))
        defer { store.close() }
        let run = try Self.run(claim.before + claim.inputs, store: store, app: try Fixture.app())
        let pure = try #require(run.ledger.subscriptions[Fixture.original])
        #expect(pure.journal.ownerAppUserId == "dave")
        #expect(pure.journal.heldEvents.isEmpty)
        // Every event the six notifications made was held, and the claim released them all.
        #expect(run.pure.count >= 5)
        #expect(run.stored.map(\.id) == run.pure.map(\.id))
        #expect(run.stored.map(\.sequence) == run.pure.map(\.sequence))
        #expect(run.stored.map(\.sequence) == (1...Int64(run.pure.count)).map { Optional($0) })
        #expect(run.stored.allSatisfy { $0.customerId == "dave" })
        let raw = try Self.raw(store)
        #expect(raw.rows == 0)
        #expect(raw.journal.storedHeldEventCount == nil)
        #expect(try Fixture.stored(store).journal == pure.journal)
    }

    /// A history written before migration 14 holds all its held events; its next write moves
    /// them to rows, and a claim after that still releases every one.
    @Test func heldEventsKeptInHistoryMoveToRowsOnTheNextWrite() throws {
        let directory = TestDirectory("held-rows-legacy")
        let store = try Store(path: directory.path("revenuedot.sqlite"))
        defer { store.close() }
        let app = try Fixture.app()
        var ledger = Ledger(configuration: app.ledger.configuration)
        for input in Self.notifications(0..<3) { _ = ledger.apply(input, at: Date(timeIntervalSince1970: 1_800_000_000)) }
        let legacy = try #require(ledger.subscriptions[Fixture.original])
        #expect(legacy.journal.heldEvents.count >= 3)
        try store.write { transaction in
            try transaction.execute(
                "INSERT INTO purchases (app_id, purchase_key, owner, json, history) VALUES ('demo', ?, NULL, ?, ?)",
                [
                    .text(Self.key), .text(try LedgerRows.encode(legacy.withoutHistory)),
                    .text(try LedgerRows.encode(legacy.journal)),
                ])
        }
        let next = Ledger.Input.notificationReceived(Fixture.facts(3))
        try store.write { transaction in try LedgerInputs.apply(next, app: app.ledger, atMs: 1_800_000_000_003, in: transaction) }
        _ = ledger.apply(next, at: Date(timeIntervalSince1970: 1_800_000_000.003))
        let raw = try Self.raw(store)
        let expected = try #require(ledger.subscriptions[Fixture.original])
        #expect(raw.journal.heldEvents.isEmpty)
        #expect(raw.rows == expected.journal.heldEvents.count)
        #expect(try Fixture.stored(store).journal == expected.journal)
        let claim = Ledger.Input.linked(.subscription(originalTransactionId: Fixture.original), appUserId: "erin")
        try store.write { transaction in try LedgerInputs.apply(claim, app: app.ledger, atMs: 1_800_000_000_004, in: transaction)
        }
        let released = try store.read { (rows) throws(StoreError) in
            try rows.query("SELECT count(*) FROM events WHERE customer = 'erin'").first?.first?.integerValue
        }
        #expect(released == Int64(expected.journal.heldEvents.count))
        #expect(try Self.raw(store).rows == 0)
    }

    /// The safety net: a journal claimed while held events were still kept apart is not written.
    @Test func aClaimWithoutTheHeldEventsKeptApartIsRefused() throws {
        let directory = TestDirectory("held-rows-refused")
        let store = try Store(path: directory.path("revenuedot.sqlite"))
        defer { store.close() }
        let journal = try LedgerRows.decode(
            PurchaseJournal.self,
            #"{"emittedEventIds":[],"facts":[],"heldEvents":[],"ownerAppUserId":"x","storedHeldEventCount":2,"transferCount":0}"#)
        #expect(throws: StoreError.self) {
            try store.write { transaction in
                _ = try HeldEventRows.save(journal, key: Self.key, restored: 0, appId: "demo", in: transaction)
            }
        }
    }
}
