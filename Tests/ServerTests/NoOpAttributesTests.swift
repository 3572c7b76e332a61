import Foundation
import JSON
import LoopbackClient
import Testing

@testable import Server
@testable import Tools

/// An attributes write that changes no attribute keeps nothing: the public key ships in every
/// copy of the app, and repeating one must not grow the database. Replay rebuilds the same.
@Suite("Attribute writes that change nothing")
struct NoOpAttributesTests {
    typealias R = AppUserIdRuleTests

    static func rows(_ fixture: ServerFixture) throws -> [Int64] {
        [try R.count(fixture, "customer_actions"), try R.count(fixture, "applied_inputs")]
    }

    /// Stops `service`, replays its database and serves it again.
    static func replayed(_ fixture: ServerFixture, stopping service: RevenueDotService) throws -> RevenueDotService {
        service.shutdown()
        let replay = try runCLI(["replay", "--config", fixture.configPath])
        #expect(replay.status == 0, "\(replay.output)")
        return try fixture.startService()
    }

    @Test func repeatedAndStaleWritesKeepNothing() throws {
        let fixture = try ServerFixture()
        var service = try fixture.startService()
        var connection = try LoopbackConnection(port: service.port)
        func post(_ body: String) throws -> Int {
            try R.request(connection, "POST", "/v1/subscribers/ivy/attributes", key: "pk_test_public", body: body).status
        }
        func attributes() throws -> JSONValue? {
            let answer = try R.request(connection, "GET", "/v1/subscribers/ivy", key: "sk_test_secret")
            return try JSONValue(parsing: answer.body)["subscriber"]?["subscriber_attributes"]
        }
        let set =
            #"{"attributes": {"plan": {"value": "gold", "updated_at_ms": 100}, "$email": {"value": "i@x.io", "updated_at_ms": 100}}}"#
        #expect(try post(set) == 200)
        let kept = try Self.rows(fixture)

        // The same values at the same time, one of them again, an older value, a delete of a key
        // never set.
        #expect(try post(set) == 200)
        #expect(try post(#"{"attributes": {"plan": {"value": "gold", "updated_at_ms": 100}}}"#) == 200)
        #expect(try post(#"{"attributes": {"plan": {"value": "tin", "updated_at_ms": 50}}}"#) == 200)
        #expect(try post(#"{"attributes": {"nickname": {"value": null, "updated_at_ms": 100}}}"#) == 200)
        #expect(try Self.rows(fixture) == kept)
        let before = try attributes()
        #expect(before?["plan"]?["value"] == .string("gold"))

        // A newer write of the same value changes the customer (its time), and is kept.
        #expect(try post(#"{"attributes": {"plan": {"value": "gold", "updated_at_ms": 200}}}"#) == 200)
        #expect(try Self.rows(fixture) == kept.map { $0 + 1 })
        #expect(try attributes()?["plan"]?["updated_at_ms"] == .integer(200))

        // Replay rebuilds the same attributes from what was kept.
        let answered = try attributes()
        service = try Self.replayed(fixture, stopping: service)
        defer { service.shutdown() }
        connection = try LoopbackConnection(port: service.port)
        #expect(try attributes() == answered)
    }

    /// A write that changes nothing for a customer not known yet makes the customer: it is kept.
    @Test func aWriteForANewCustomerIsKept() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let deleteNothing = #"{"attributes": {"plan": {"value": null, "updated_at_ms": 100}}}"#
        let posted = try R.request(
            connection, "POST", "/v1/subscribers/new/attributes", key: "pk_test_public", body: deleteNothing)
        #expect(posted.status == 200)
        #expect(try Self.rows(fixture) == [1, 1])
    }
}
