import Foundation
import JSON
import LoopbackClient
import Testing
import Threads

@testable import Server
@_spi(StoreSQL) @testable import Storage

/// A customer's webhook deliveries go one after another; a customer merged into another (a
/// log-in, an alias) brings its waiting deliveries into the queue of the one it joined, so the
/// events made before the merge still go before those made after it.
@Suite("Deliveries of merged customers")
struct MergedCustomerDeliveriesTests {
    func customers(of fixture: ServerFixture) throws -> [String: String] {
        let rows = try SQLiteConnection(path: fixture.databasePath, role: .reader).query(
            "SELECT d.customer, e.type FROM deliveries d JOIN events e ON e.id = d.event_id WHERE d.status = 'pending'")
        return Dictionary(rows.map { ($0[1].textValue ?? "", $0[0].textValue ?? "") }) { $1 }
    }

    @Test(arguments: ["identify", "alias"])
    func theWaitingDeliveriesOfAMergedCustomerQueueBehindItsNewOne(by route: String) throws {
        // Nothing answers at port 9: every delivery waits for its retries.
        let fixture = try ServerFixture(demoOptions: #""webhook": {"url": "http://127.0.0.1:9/hooks"}"#)
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let anonymous = "$RCAnonymousID:6b1f4a520c4e4a539d271c8a3b6b0f11"
        let signed = try LinkingAPITests.storeKitTransaction(fixture, original: "6520000001", product: "pro.monthly")
        #expect(try LinkingAPITests.link(connection, anonymous, signed) == 200)
        #expect(try customers(of: fixture) == ["INITIAL_PURCHASE": anonymous])

        let (path, body) =
            route == "identify"
            ? ("/v1/subscribers/identify", #"{"app_user_id": "\#(anonymous)", "new_app_user_id": "alice"}"#)
            : ("/v1/subscribers/alice/alias", #"{"new_app_user_id": "\#(anonymous)"}"#)
        let merged = try connection.request(
            "POST", path, headers: ["Authorization": "Bearer sk_test_secret", "Content-Type": "application/json"],
            body: Data(body.utf8))
        #expect((200...201).contains(merged.status), "\(String(decoding: merged.body, as: UTF8.self))")
        #expect(try customers(of: fixture) == ["INITIAL_PURCHASE": "alice"])
        // The event keeps the id it was made for.
        let made = try SQLiteConnection(path: fixture.databasePath, role: .reader).query(
            "SELECT customer FROM events WHERE type = 'INITIAL_PURCHASE'")
        #expect(made.first?.first?.textValue == anonymous)

        // alice's next event waits behind the one made before the merge, still failing: the
        // worker never tries it while the first holds (orderHoldSeconds, 300 by default).
        let second = try LinkingAPITests.storeKitTransaction(fixture, original: "6520000002", product: "pro.yearly")
        #expect(try LinkingAPITests.link(connection, "alice", second) == 200)
        Thread.sleep(forTimeInterval: 1)
        let attempts = try SQLiteConnection(path: fixture.databasePath, role: .reader).query(
            "SELECT e.customer, d.attempts FROM deliveries d JOIN events e ON e.id = d.event_id ORDER BY d.position")
        #expect(attempts.map { $0[0].textValue ?? "" } == [anonymous, "alice"])
        #expect((attempts.first?[1].integerValue ?? 0) >= 1)
        #expect(attempts.last?[1].integerValue == 0, "the later event went before the earlier one")

        // A dead letter of the merged id, sent again, queues with the customer it joined.
        service.shutdown()
        let store = try Store(path: fixture.databasePath)
        defer { store.close() }
        try store.write { transaction in
            try transaction.execute(
                "UPDATE deliveries SET status = 'dead', customer = ? WHERE customer = 'alice' AND attempts > 0",
                [.text(anonymous)])
            let first = try #require(try transaction.query("SELECT event_id FROM deliveries WHERE status = 'dead'").first)
            let routes = try fixture.config().app("demo")?.ledger.webhooks ?? []
            _ = try Deliveries.resend(eventId: first[0].textValue ?? "", webhooks: routes, at: UnixTime.nowMs, in: transaction)
        }
        #expect(try customers(of: fixture)["INITIAL_PURCHASE"] == "alice")
    }
}
