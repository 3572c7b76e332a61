import AppStore
import Foundation
import Subscriptions
import Testing

@testable import Server
@_spi(StoreSQL) @testable import Storage
@testable import Tools

/// The decoded purchases a store keeps (`PurchaseCache`) answer only for the exact text of a
/// row, and applying inputs through them stores what the pure reducer holds.
@Suite struct PurchaseCacheTests {
    static func state(_ id: String) -> SubscriptionState {
        SubscriptionState(originalTransactionId: id)
    }

    @Test func aPurchaseIsKeptForTheExactTextOfItsRow() {
        let cache = PurchaseCache()
        cache.remember(Self.state("1"), appId: "app", key: "s:1", json: #"{"a":1}"#, history: #"{"h":1}"#)
        #expect(
            cache.purchase(SubscriptionState.self, appId: "app", key: "s:1", json: #"{"a":1}"#, history: #"{"h":1}"#)
                == Self.state("1"))
        // Another text, history, app or purchase, or another type, is not this entry.
        #expect(cache.purchase(SubscriptionState.self, appId: "app", key: "s:1", json: #"{"a":2}"#, history: #"{"h":1}"#) == nil)
        #expect(cache.purchase(SubscriptionState.self, appId: "app", key: "s:1", json: #"{"a":1}"#, history: nil) == nil)
        #expect(
            cache.purchase(SubscriptionState.self, appId: "other", key: "s:1", json: #"{"a":1}"#, history: #"{"h":1}"#) == nil)
        #expect(cache.purchase(SubscriptionState.self, appId: "app", key: "s:2", json: #"{"a":1}"#, history: #"{"h":1}"#) == nil)
        #expect(cache.purchase(OneTimePurchase.self, appId: "app", key: "s:1", json: #"{"a":1}"#, history: #"{"h":1}"#) == nil)
        // Texts Swift calls equal (canonically equivalent) but whose bytes differ are different rows.
        cache.remember(Self.state("2"), appId: "app", key: "s:2", json: "{\"n\":\"\u{E9}\"}", history: nil)
        #expect("{\"n\":\"\u{E9}\"}" == "{\"n\":\"e\u{301}\"}")
        #expect(
            cache.purchase(SubscriptionState.self, appId: "app", key: "s:2", json: "{\"n\":\"e\u{301}\"}", history: nil) == nil)
        #expect(cache.purchase(SubscriptionState.self, appId: "app", key: "s:2", json: "{\"n\":\"\u{E9}\"}", history: nil) != nil)
    }

    @Test func theOldestWritesGoFirstOnceTheTextPassesTheBudget() {
        let cache = PurchaseCache(capacityBytes: 30)
        let text = String(repeating: "x", count: 10)
        for id in ["1", "2", "3"] { cache.remember(Self.state(id), appId: "app", key: "s:\(id)", json: text, history: nil) }
        #expect(cache.usage == (3, 30))
        // Writing 1 again makes it the newest; 4 then pushes out 2, the oldest write.
        cache.remember(Self.state("1"), appId: "app", key: "s:1", json: text, history: nil)
        cache.remember(Self.state("4"), appId: "app", key: "s:4", json: text, history: nil)
        #expect(cache.usage == (3, 30))
        let kept = ["1", "2", "3", "4"].filter {
            cache.purchase(SubscriptionState.self, appId: "app", key: "s:\($0)", json: text, history: nil) != nil
        }
        #expect(kept == ["1", "3", "4"])
        // A purchase larger than the whole budget is not kept, and pushes out every other.
        cache.remember(Self.state("5"), appId: "app", key: "s:5", json: String(repeating: "y", count: 40), history: nil)
        #expect(cache.usage == (0, 0))
        for id in 0..<500 { cache.remember(Self.state("\(id)"), appId: "app", key: "s:\(id)", json: text, history: nil) }
        #expect(cache.usage == (3, 30))
    }

    /// A row written after the cache kept its purchase (another node, a rolled-back write, a
    /// restore) is decoded: the next input applies to what the row holds.
    @Test func aRowChangedBehindTheCacheIsDecoded() throws {
        let directory = TestDirectory("purchase-cache")
        let store = try Store(path: directory.path("revenuedot.sqlite"))
        defer { store.close() }
        let app = try PurchaseFactRowsTests.app()
        let cache = LedgerCache()
        _ = try PurchaseFactRowsTests.apply([0, 1, 2], to: store, app: app, cache: cache)
        let key = "s:\(PurchaseFactRowsTests.original)"
        func row() throws -> (json: String, history: String?, snapshots: String?) {
            let found = try store.read { (rows) throws(StoreError) in
                try rows.query("SELECT json, history, history_snapshots FROM purchases WHERE purchase_key = ?", [.text(key)])
            }
            let first = try #require(found.first)
            return (try #require(first[0].textValue), first[1].textValue, first[2].textValue)
        }
        // The row as written is kept, as what it decodes to (its history and the snapshots it left
        // out, compared together).
        let written = try row()
        let kept = try #require(
            cache.purchases.purchase(
                SubscriptionState.self, appId: app.id, key: key, json: written.json,
                history: HistorySnapshots.cacheKey(history: written.history, snapshots: written.snapshots)))
        #expect(
            kept
                == (try LedgerRows.decode(SubscriptionState.self, written.json).replacingJournal(
                    LedgerRows.storedJournal(
                        key: key, json: written.json, history: try #require(written.history), snapshots: written.snapshots))))

        // Another writer puts back the purchase as it was after the first two inputs.
        let otherDirectory = TestDirectory("purchase-cache-other")
        let other = try Store(path: otherDirectory.path("revenuedot.sqlite"))
        defer { other.close() }
        _ = try PurchaseFactRowsTests.apply([0, 1], to: other, app: app)
        let earlier = try other.read { (rows) throws(StoreError) in
            try rows.query("SELECT json, history, history_snapshots FROM purchases WHERE purchase_key = ?", [.text(key)])
        }
        try store.write { transaction in
            try transaction.execute(
                "UPDATE purchases SET json = ?, history = ?, history_snapshots = ? WHERE purchase_key = ?",
                [earlier[0][0], earlier[0][1], earlier[0][2], .text(key)])
        }
        // Applying the fourth input now must build on that row, not on the kept purchase.
        let pure = try PurchaseFactRowsTests.apply([0, 1, 3], to: other, app: app)
        let hits = cache.purchases.hits
        try store.write { transaction in
            try LedgerInputs.apply(
                .notificationReceived(PurchaseFactRowsTests.facts(3)), app: app.ledger, atMs: 1_800_000_000_003, cache: cache,
                in: transaction)
        }
        #expect(try row().json == (try LedgerRows.encode(pure.withoutHistory)))
        #expect(cache.purchases.hits == hits)
        // The row just written is kept again.
        let rewritten = try row()
        #expect(
            cache.purchases.purchase(
                SubscriptionState.self, appId: app.id, key: key, json: rewritten.json, history: rewritten.history) != nil)
    }
}
