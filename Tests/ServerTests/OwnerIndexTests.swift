import Foundation
import Testing

@testable import Server
@_spi(StoreSQL) @testable import Storage
@testable import Tools

/// Migration 10 indexes only purchases that have an owner; the lookup of a customer's purchases
/// must still go through that index, not scan every purchase.
@Suite struct OwnerIndexTests {
    @Test func aCustomersPurchasesAreFoundThroughThePartialOwnerIndex() throws {
        let directory = TestDirectory()
        let store = try Store(path: directory.path("revenuedot.sqlite"))
        defer { store.close() }
        let plan = try store.read { (rows) throws(StoreError) in
            try rows.query("EXPLAIN QUERY PLAN " + LedgerRows.ownedPurchases, [.text("demo"), .text("alice")])
        }
        let details = plan.compactMap { $0.last?.textValue }
        #expect(details.contains { $0.contains("USING INDEX purchases_by_owner") }, "plan: \(details)")
        #expect(!details.contains { $0.hasPrefix("SCAN") }, "plan: \(details)")
    }

    @Test func unownedPurchasesAreLeftOutOfTheOwnerIndex() throws {
        let directory = TestDirectory()
        let store = try Store(path: directory.path("revenuedot.sqlite"))
        defer { store.close() }
        try store.write { transaction in
            for (key, owner) in [("s:1", "alice"), ("s:2", nil), ("s:3", nil), ("s:4", "bob")] {
                try transaction.execute(
                    "INSERT INTO purchases (app_id, purchase_key, owner, json) VALUES ('demo', ?, ?, '{}')",
                    [.text(key), owner.map(SQLValue.text) ?? .null])
            }
        }
        let (indexed, owned) = try store.read { (rows) throws(StoreError) in
            (
                try rows.query("SELECT count(*) FROM purchases INDEXED BY purchases_by_owner WHERE owner > ''", []),
                try rows.query(LedgerRows.ownedPurchases, [.text("demo"), .text("alice")])
            )
        }
        #expect(indexed.first?.first?.integerValue == 2)
        #expect(owned.map { $0[0].textValue } == ["s:1"])
        // The index holds no entry for a purchase without an owner, so SQLite refuses to answer
        // a question about every purchase of the app from it ("no query solution"); a full
        // index would answer it.
        let refused = #expect(throws: StoreError.self) {
            try store.read { (rows) throws(StoreError) in
                try rows.query("SELECT purchase_key FROM purchases INDEXED BY purchases_by_owner WHERE app_id = 'demo'", [])
            }
        }
        #expect(refused?.message.contains("no query solution") == true, "\(String(describing: refused))")
    }
}
