import AppStore
import Foundation
import Subscriptions
import Testing

@testable import Server
@_spi(StoreSQL) @testable import Storage
@testable import Tools

/// The store's decoded facts: kept by app, purchase and id, the oldest dropped first once full,
/// and only ever used for fact rows that exist.
@Suite struct FactCacheTests {
    static func fact(_ id: String) -> PurchaseFact {
        PurchaseFact(
            id: id, source: .notification(type: .didRenew, subtype: nil), signedDateMs: 1, transaction: nil, renewalInfo: nil)
    }

    @Test func factsAreKeptByAppPurchaseAndId() {
        let cache = FactCache(capacity: 10)
        cache.remember(Self.fact("a"), appId: "app", purchase: "s:1")
        cache.remember(Self.fact("a"), appId: "app", purchase: "s:1")
        #expect(cache.count == 1)
        #expect(cache.facts(["a", "b"], appId: "app", purchase: "s:1").keys.sorted() == ["a"])
        #expect(cache.facts(["a"], appId: "app", purchase: "s:2").isEmpty)
        #expect(cache.facts(["a"], appId: "other", purchase: "s:1").isEmpty)
    }

    @Test func theOldestGoFirstOnceFull() {
        let cache = FactCache(capacity: 3)
        for id in ["a", "b", "c", "d", "e"] { cache.remember(Self.fact(id), appId: "app", purchase: "s:1") }
        #expect(cache.count == 3)
        #expect(cache.facts(["a", "b", "c", "d", "e"], appId: "app", purchase: "s:1").keys.sorted() == ["c", "d", "e"])
        cache.remember(Self.fact("f"), appId: "app", purchase: "s:1")
        #expect(cache.facts(["c", "d", "e", "f"], appId: "app", purchase: "s:1").keys.sorted() == ["d", "e", "f"])
    }

    /// A refold reads the ids from the table: a cached fact with no row (its transaction rolled
    /// back, or the row deleted) is not folded in, and a row the cache lacks is decoded.
    @Test func onlyFactsWithRowsAreLoaded() throws {
        let directory = TestDirectory("fact-cache")
        let store = try Store(path: directory.path("revenuedot.sqlite"))
        defer { store.close() }
        let app = try PurchaseFactRowsTests.app()
        let cache = FactCache()
        _ = try PurchaseFactRowsTests.apply([0, 1, 2, 3], to: store, app: app, cache: LedgerCache(facts: cache))
        #expect(cache.count == 3)
        let key = "s:\(PurchaseFactRowsTests.original)"
        cache.remember(Self.fact("not-a-row"), appId: app.id, purchase: key)
        try store.write { transaction in
            try transaction.execute("DELETE FROM purchase_facts WHERE fact_id = 'n-1'")
        }
        // Rows the cache has never seen: written by another build or process.
        let written = PurchaseFactRowsTests.facts(9)
        try store.write { transaction in
            try transaction.execute(
                "INSERT INTO purchase_facts (app_id, purchase_key, fact_id, json) VALUES (?, ?, ?, ?)",
                [.text(app.id), .text(key), .text("n-9"), .text(LedgerRows.encode(PurchaseFact(written)))])
        }
        let row = try store.read { (rows) throws(StoreError) in
            try rows.query("SELECT json, history, history_snapshots FROM purchases WHERE purchase_key = ?", [.text(key)]).first
        }
        let found = try #require(row)
        let stored = try LedgerRows.storedJournal(
            key: key, json: try #require(found[0].textValue), history: try #require(found[1].textValue),
            snapshots: found[2].textValue)
        let older = PurchaseFact(PurchaseFactRowsTests.facts(0))
        let (loaded, journal) = try store.read { (rows) throws(StoreError) -> (PurchaseFactRows.Loaded, PurchaseJournal) in
            var journal = stored
            do {
                let loaded = try PurchaseFactRows.load(
                    &journal, key: key, incoming: older, appId: app.id, cache: cache, from: rows)
                return (loaded, journal)
            } catch { throw StoreError(.invalid, "\(error)") }
        }
        #expect(loaded.ids == ["n-0", "n-2", "n-9"])
        #expect(journal.facts.map(\.id) == ["n-0", "n-2", "n-3", "n-9"])
        #expect(cache.facts(["n-9"], appId: app.id, purchase: key)["n-9"] == PurchaseFact(written))
    }
}
