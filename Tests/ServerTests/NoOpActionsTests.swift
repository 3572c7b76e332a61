import Foundation
import JSON
import LoopbackClient
import Testing

@testable import Server

/// A customer action that changes nothing keeps nothing: the public key ships in every copy of
/// the app, and repeated writes must not grow the database.
@Suite("Customer actions that change nothing")
struct NoOpActionsTests {
    typealias R = AppUserIdRuleTests

    static func rows(_ fixture: ServerFixture) throws -> [Int64] {
        [try R.count(fixture, "customer_actions"), try R.count(fixture, "applied_inputs")]
    }

    @Test func repeatedStaleAndEmptyWritesKeepNothing() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        func post(_ path: String, _ body: String, key: String = "pk_test_public") throws -> Int {
            try R.request(connection, "POST", path, key: key, body: body).status
        }
        let set = #"{"attributes": {"plan": {"value": "gold", "updated_at_ms": 100}}}"#
        #expect(try post("/v1/subscribers/ivy/attributes", set) == 200)
        #expect(try post("/v1/subscribers/ivy/alias", #"{"new_app_user_id": "ivy-2"}"#) == 200)
        let kept = try Self.rows(fixture)
        #expect(kept[0] >= 2)

        // The same value at the same time, an older one, no attributes at all.
        #expect(try post("/v1/subscribers/ivy/attributes", set) == 200)
        #expect(
            try post("/v1/subscribers/ivy/attributes", #"{"attributes": {"plan": {"value": "tin", "updated_at_ms": 50}}}"#) == 200
        )
        #expect(try post("/v1/subscribers/ivy/attributes", #"{"attributes": {}}"#) == 200)
        // An alias the customer has; a log-in as the customer it is.
        #expect(try post("/v1/subscribers/ivy/alias", #"{"new_app_user_id": "ivy-2"}"#) == 200)
        #expect(try post("/v1/subscribers/identify", #"{"app_user_id": "ivy", "new_app_user_id": "ivy"}"#) == 200)
        // A revoke of grants the customer does not have.
        #expect(try post("/v1/subscribers/ivy/entitlements/pro/revoke_promotionals", "{}", key: "sk_test_secret") == 200)
        #expect(try Self.rows(fixture) == kept)

        // A newer write of the same value does change the customer (its time), and is kept.
        #expect(
            try post("/v1/subscribers/ivy/attributes", #"{"attributes": {"plan": {"value": "gold", "updated_at_ms": 200}}}"#)
                == 200)
        #expect(try Self.rows(fixture) == kept.map { $0 + 1 })
        let answer = try R.request(connection, "GET", "/v1/subscribers/ivy", key: "sk_test_secret")
        #expect(
            try JSONValue(parsing: answer.body)["subscriber"]?["subscriber_attributes"]?["plan"]?["updated_at_ms"]
                == .integer(200))
    }
}
