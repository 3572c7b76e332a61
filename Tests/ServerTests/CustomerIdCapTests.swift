import Dispatch
import Foundation
import JSON
import LoopbackClient
import Testing
import Threads

@testable import Server
@_spi(StoreSQL) @testable import Storage
@testable import Subscriptions
@testable import Tools

/// The public key may join ids (`/alias`); a customer is known by at most
/// `CustomerIdCap.maximumIds` of them, checked in the write.
@Suite struct CustomerIdCapAPITests {
    /// Requests at once, each adding a new id to a customer one short of the cap: exactly one
    /// is saved, whatever the order, and the refused ones change nothing.
    @Test func requestsAtOnceCannotPassTheCapTogether() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        defer { service.shutdown() }
        let app = try #require(service.current.apps.first { $0.id == "demo" })
        try service.store.write { transaction in
            for index in 0..<(CustomerIdCap.maximumIds - 2) {
                try LedgerInputs.keepAndApply(
                    .customerAction(.aliased(appUserId: "crowd", newAppUserId: "crowd-\(index)")), app: app.ledger,
                    atMs: 1_800_000_000_000, in: transaction)
            }
        }
        let requests = 8
        let statuses = Locked<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: requests) { request in
            let status = (try? LoopbackConnection(port: service.port)).flatMap {
                try? $0.request(
                    "POST", "/v1/subscribers/crowd/alias",
                    headers: ["Authorization": "Bearer pk_test_public", "Content-Type": "application/json"],
                    body: Data(#"{"new_app_user_id": "racer-\#(request)"}"#.utf8)
                ).status
            }
            statuses.withLock { $0.append(status ?? 0) }
        }
        #expect(statuses.value.sorted() == [200] + Array(repeating: 400, count: requests - 1), "\(statuses.value)")
        let customer = try #require(
            try service.store.read { (rows) throws(StoreError) in
                try StoreError.decoding { try CustomerRows.customer(named: "crowd", appId: "demo", from: rows) }
            })
        #expect(customer.aliases.count == CustomerIdCap.maximumIds)
        let pointed = try service.store.read { (rows) throws(StoreError) in
            try rows.query("SELECT count(*) FROM customer_aliases WHERE app_user_id = 'crowd'", [])
        }
        #expect(pointed.first?.first?.integerValue == Int64(CustomerIdCap.maximumIds - 1))
        // RevenueCat's shape for the refusal, and an id already the customer's still answers.
        let connection = try LoopbackConnection(port: service.port)
        let refused = try connection.request(
            "POST", "/v1/subscribers/crowd/alias",
            headers: ["Authorization": "Bearer pk_test_public", "Content-Type": "application/json"],
            body: Data(#"{"new_app_user_id": "one-too-many"}"#.utf8))
        #expect(refused.status == 400)
        #expect(try JSONValue(parsing: refused.body)["code"] == .integer(7255), "\(refused.text)")
        let known = try connection.request(
            "POST", "/v1/subscribers/crowd/alias",
            headers: ["Authorization": "Bearer pk_test_public", "Content-Type": "application/json"],
            body: Data(#"{"new_app_user_id": "crowd-7"}"#.utf8))
        #expect(known.status == 200, "\(known.text)")
    }
}
