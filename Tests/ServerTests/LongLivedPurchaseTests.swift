import AppStore
import Foundation
import Subscriptions
import Testing

@testable import Server
@_spi(StoreSQL) @testable import Storage
@testable import Tools

/// What a subscription's row costs must not grow with whole transactions or held events: each
/// renewal adds only a period summary to its state and an event id to its history. Stored, the
/// purchase is still exactly what the pure reducer holds.
@Suite struct LongLivedPurchaseTests {
    typealias Fixture = PurchaseFactRowsTests

    /// State and history bytes after each count of notifications (same purchase, in order).
    static func sizes(after counts: [Int], store: Store, app: AppConfig) throws -> [(state: Int, history: Int)] {
        var ledger = Ledger(configuration: app.ledger.configuration)
        var sizes: [(state: Int, history: Int)] = []
        for index in 0..<(counts.max() ?? 0) {
            let input = Ledger.Input.notificationReceived(Fixture.facts(index))
            let at = Int64(1_800_000_000_000 + index)
            try store.write { transaction in try LedgerInputs.apply(input, app: app.ledger, atMs: at, in: transaction) }
            _ = ledger.apply(input, at: Date(timeIntervalSince1970: Double(at) / 1000))
            guard counts.contains(index + 1) else { continue }
            let row = try store.read { (rows) throws(StoreError) in
                try rows.query(
                    "SELECT json, history FROM purchases WHERE purchase_key = ?", [.text("s:\(Fixture.original)")])
            }
            let json = try #require(row.first?[0].textValue)
            let history = try #require(row.first?[1].textValue)
            let pure = try #require(ledger.subscriptions[Fixture.original])
            #expect(json == (try LedgerRows.encode(pure.withoutHistory)))
            #expect(try Fixture.stored(store).journal == pure.journal)
            sizes.append((json.utf8.count, history.utf8.count))
        }
        return sizes
    }

    @Test func fourYearsOfRenewalsAddOnlySummariesAndIds() throws {
        let directory = TestDirectory("long-lived")
        let store = try Store(path: directory.path("revenuedot.sqlite"))
        defer { store.close() }
        let sizes = try Self.sizes(after: [12, 48], store: store, app: try Fixture.app())
        let state = try #require(
            try store.read { (rows) throws(StoreError) in
                try rows.query("SELECT json FROM purchases").first?.first?.textValue
            })
        let decoded = try LedgerRows.decode(SubscriptionState.self, state)
        // 47 periods: the fixture's DID_CHANGE_RENEWAL_STATUS carries no new period.
        #expect(decoded.transactions.count == 1)
        #expect(decoded.earlierPeriods?.count == 46)
        #expect(decoded.renewalNumber == 47)
        // 36 more renewals: a summary of about 150 bytes each in the state, an id in the history
        // (before, each added a whole transaction to both, and a held event to the history).
        #expect(sizes[1].state - sizes[0].state < 36 * 200, "\(sizes)")
        #expect(sizes[1].history - sizes[0].history < 36 * 80, "\(sizes)")
    }
}
