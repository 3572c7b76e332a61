import AppStore
import Foundation
import Subscriptions
import Testing

@testable import Server
@_spi(StoreSQL) @testable import Storage
@testable import Tools

/// A purchase's older facts live in `purchase_facts` and only the newest in `purchases.history`
/// (migration 8): whatever the delivery order, the stored purchase must be exactly what the pure
/// reducer holds after the same inputs, history included.
@Suite struct PurchaseFactRowsTests {
    static let original = "4000000001"

    static func facts(_ index: Int) -> VerifiedNotificationFacts {
        let signed = Int64(1_700_000_000_000 + index * 1000)
        let transaction = JWSTransactionDecodedPayload(
            transactionId: "\(original)-\(index)", originalTransactionId: original, productId: "pro.monthly",
            purchaseDate: signed, originalPurchaseDate: 1_700_000_000_000, expiresDate: signed + 2_592_000_000,
            type: .autoRenewable, signedDate: signed, environment: .sandbox, price: 9990)
        let renewal = JWSRenewalInfoDecodedPayload(
            originalTransactionId: original, productId: "pro.monthly", autoRenewProductId: "pro.monthly",
            autoRenewStatus: index == 3 ? .off : .on, signedDate: signed, environment: .sandbox)
        return VerifiedNotificationFacts(
            notificationUUID: "n-\(index)",
            notificationType: index == 0 ? .subscribed : index == 3 ? .didChangeRenewalStatus : .didRenew,
            subtype: index == 0 ? .initialBuy : nil, signedDateMs: signed, environment: .sandbox, transaction: transaction,
            renewalInfo: renewal)
    }

    static func app() throws -> AppConfig {
        try #require(try ServerFixture().config().apps.first { $0.id == "demo" })
    }

    /// The purchase as stored: its state, and its journal with the fact rows and held event rows
    /// put back.
    static func stored(_ store: Store) throws -> (json: String, journal: PurchaseJournal, rows: Int, inline: Int) {
        let rows = try store.read { (rows) throws(StoreError) in
            (
                try rows.query(
                    "SELECT json, history, history_snapshots FROM purchases WHERE purchase_key = ?", [.text("s:\(original)")]),
                try rows.query("SELECT json FROM purchase_facts WHERE purchase_key = ?", [.text("s:\(original)")]),
                try rows.query("SELECT json FROM held_events WHERE purchase_key = ? ORDER BY seq", [.text("s:\(original)")])
            )
        }
        let purchase = try #require(rows.0.first)
        let history = try LedgerRows.storedJournal(
            key: "s:\(original)", json: try #require(purchase[0].textValue), history: try #require(purchase[1].textValue),
            snapshots: purchase[2].textValue)
        let older = try rows.1.map { try LedgerRows.decode(PurchaseFact.self, try #require($0[0].textValue)) }
        let held = try rows.2.map { try LedgerRows.decode(Event.self, try #require($0[0].textValue)) }
        #expect(held.count == history.storedHeldEventCount ?? 0)
        return (
            try #require(purchase[0].textValue),
            history.replacingFacts(older + history.facts).restoringHeldEvents(held), older.count, history.facts.count
        )
    }

    /// Applies the facts in `order` through storage (with `cache`, if given), and the same to a pure ledger.
    static func apply(_ order: [Int], to store: Store, app: AppConfig, cache: LedgerCache? = nil) throws
        -> SubscriptionState
    {
        var ledger = Ledger(configuration: app.ledger.configuration)
        for index in order {
            let input = Ledger.Input.notificationReceived(facts(index))
            let at = Int64(1_800_000_000_000 + index)
            try store.write { transaction in
                try LedgerInputs.apply(input, app: app.ledger, atMs: at, cache: cache, in: transaction)
            }
            _ = ledger.apply(input, at: Date(timeIntervalSince1970: Double(at) / 1000))
        }
        return try #require(ledger.subscriptions[original])
    }

    static let orders = [[0, 1, 2, 3, 4, 5], [5, 4, 3, 2, 1, 0], [2, 0, 5, 1, 1, 4, 3, 0], [0, 3, 1, 5, 2, 4, 5]]

    /// Without a fact cache, with one large enough, and with one that keeps two facts (refolds
    /// then decode the rest).
    @Test(arguments: orders, [nil, 1024, 2])
    func storedPurchaseIsThePureReducersWhateverTheOrder(order: [Int], cacheCapacity: Int?) throws {
        let directory = TestDirectory("fact-rows")
        let store = try Store(path: directory.path("revenuedot.sqlite"))
        defer { store.close() }
        let cache = cacheCapacity.map { LedgerCache(facts: FactCache(capacity: $0)) }
        let pure = try Self.apply(order, to: store, app: try Self.app(), cache: cache)
        #expect((cache?.facts.count ?? 0) <= (cacheCapacity ?? 0))
        let stored = try Self.stored(store)
        #expect(stored.json == (try LedgerRows.encode(pure.withoutHistory)))
        #expect(stored.journal == pure.journal)
        #expect(stored.inline == 1)
        #expect(stored.rows == Set(order).count - 1)
    }

    /// A purchase written before migration 8 carries all its facts in `history`; its next write
    /// moves all but the newest to rows.
    @Test func factsKeptInHistoryMoveToRowsOnTheNextWrite() throws {
        let directory = TestDirectory("fact-rows-legacy")
        let store = try Store(path: directory.path("revenuedot.sqlite"))
        defer { store.close() }
        let app = try Self.app()
        var ledger = Ledger(configuration: app.ledger.configuration)
        for index in 0..<3 {
            _ = ledger.apply(.notificationReceived(Self.facts(index)), at: Date(timeIntervalSince1970: 1_800_000_000))
        }
        let legacy = try #require(ledger.subscriptions[Self.original])
        #expect(legacy.journal.facts.count == 3)
        let json = try LedgerRows.encode(legacy.withoutHistory)
        let history = try LedgerRows.encode(legacy.journal)
        try store.write { transaction in
            try transaction.execute(
                "INSERT INTO purchases (app_id, purchase_key, owner, json, history) VALUES ('demo', ?, NULL, ?, ?)",
                [.text("s:\(Self.original)"), .text(json), .text(history)])
        }
        let input = Ledger.Input.notificationReceived(Self.facts(3))
        try store.write { transaction in try LedgerInputs.apply(input, app: app.ledger, atMs: 1_800_000_000_003, in: transaction)
        }
        _ = ledger.apply(input, at: Date(timeIntervalSince1970: 1_800_000_000.003))
        let expected = try #require(ledger.subscriptions[Self.original])
        let stored = try Self.stored(store)
        #expect(stored.journal.facts.map(\.id) == ["n-0", "n-1", "n-2", "n-3"])
        #expect((stored.rows, stored.inline) == (3, 1))
        #expect(stored.journal == expected.journal)
        #expect(stored.json == (try LedgerRows.encode(expected.withoutHistory)))
    }

    /// Linking and a transfer between out-of-order facts read no facts; the result is still the pure reducer's.
    @Test func linkingBetweenOutOfOrderFactsKeepsThePureReducersPurchase() throws {
        let directory = TestDirectory("fact-rows-linking")
        let store = try Store(path: directory.path("revenuedot.sqlite"))
        defer { store.close() }
        let app = try Self.app()
        var ledger = Ledger(configuration: app.ledger.configuration)
        let key = PurchaseKey.subscription(originalTransactionId: Self.original)
        let inputs: [Ledger.Input] = [
            .notificationReceived(Self.facts(2)), .linked(key, appUserId: "alice"), .notificationReceived(Self.facts(4)),
            .linked(key, appUserId: "bob"), .notificationReceived(Self.facts(0)), .notificationReceived(Self.facts(5)),
            .notificationReceived(Self.facts(3)), .notificationReceived(Self.facts(1)),
        ]
        for (offset, input) in inputs.enumerated() {
            let at = Int64(1_800_000_000_000 + offset)
            try store.write { transaction in try LedgerInputs.apply(input, app: app.ledger, atMs: at, in: transaction) }
            _ = ledger.apply(input, at: Date(timeIntervalSince1970: Double(at) / 1000))
        }
        let pure = try #require(ledger.subscriptions[Self.original])
        let stored = try Self.stored(store)
        #expect(pure.journal.ownerAppUserId == "bob")
        #expect(stored.journal == pure.journal)
        #expect(stored.json == (try LedgerRows.encode(pure.withoutHistory)))
    }
}
