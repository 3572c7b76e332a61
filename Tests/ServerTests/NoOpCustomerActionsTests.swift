import Foundation
import JSON
import LoopbackClient
import Testing

@testable import Server
@testable import Tools

/// Customer actions clients repeat and that change nothing keep nothing: a log-in or an alias of
/// ids already one customer, the AppTransaction the SDK posts at every launch. Replay rebuilds
/// the same customer from what was kept.
@Suite("Customer actions that change nothing")
struct NoOpCustomerActionsTests {
    typealias R = AppUserIdRuleTests

    @Test func repeatedActionsKeepNothing() throws {
        let fixture = try ServerFixture()
        var service = try fixture.startService()
        var connection = try LoopbackConnection(port: service.port)
        func send(_ path: String, _ body: String) throws -> Int {
            try R.request(connection, "POST", path, key: "pk_test_public", body: body).status
        }
        let anonymous = "$RCAnonymousID:0123456789abcdef0123456789abcdef"
        let logIn = #"{"app_user_id": "\#(anonymous)", "new_app_user_id": "lena"}"#
        let alias = #"{"new_app_user_id": "lena@example.com"}"#
        let appTransaction = #"{"signedAppTransaction": "\#(try ReceiptsAPITests.appTransaction(fixture))"}"#
        #expect(try send("/v1/subscribers/identify", logIn) == 201)
        #expect(try send("/v1/subscribers/lena/alias", alias) == 200)
        #expect(try send("/v1/subscribers/lena/transactions", appTransaction) == 200)
        let kept = try NoOpAttributesTests.rows(fixture)
        #expect(kept == [3, 3])
        let customer = try LinkingAPITests.subscriber(connection, "lena")

        for _ in 0..<3 {
            #expect(try send("/v1/subscribers/identify", logIn) == 200)
            #expect(try send("/v1/subscribers/lena/alias", alias) == 200)
            #expect(try send("/v1/subscribers/lena@example.com/alias", #"{"new_app_user_id": "lena"}"#) == 200)
            #expect(try send("/v1/subscribers/lena/transactions", appTransaction) == 200)
        }
        #expect(try NoOpAttributesTests.rows(fixture) == kept)
        // A log-in the customer has not made yet is kept.
        #expect(try send("/v1/subscribers/identify", #"{"app_user_id": "lena", "new_app_user_id": "lena-2"}"#) == 201)
        #expect(try NoOpAttributesTests.rows(fixture) == kept.map { $0 + 1 })

        service = try NoOpAttributesTests.replayed(fixture, stopping: service)
        defer { service.shutdown() }
        connection = try LoopbackConnection(port: service.port)
        let replayed = try LinkingAPITests.subscriber(connection, "lena")
        for member in ["original_app_user_id", "original_application_version", "original_purchase_date", "first_seen"] {
            #expect(replayed[member] == customer[member], "\(member)")
        }
        #expect(replayed["original_application_version"] == .string("1.0"))
        // The alias still reaches the customer.
        #expect(
            try LinkingAPITests.subscriber(connection, "lena@example.com")["original_app_user_id"]
                == customer["original_app_user_id"])
    }
}
