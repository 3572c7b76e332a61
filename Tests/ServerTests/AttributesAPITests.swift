import AppStore
import Foundation
import JSON
import LoopbackClient
import Testing
import Threads

@testable import Server
@_spi(StoreSQL) @testable import Storage
@testable import Subscriptions
@testable import Tools

/// Subscriber attributes over HTTP, in RevenueCat's format.
@Suite("Subscriber attributes over HTTP")
struct AttributesAPITests {
    func post(_ connection: LoopbackConnection, _ user: String, _ body: String, key: String = "pk_test_public") throws -> (
        Int, JSONValue
    ) {
        let response = try connection.request(
            "POST", "/v1/subscribers/\(user)/attributes",
            headers: ["Authorization": "Bearer \(key)", "Content-Type": "application/json"], body: Data(body.utf8))
        return (response.status, (try? JSONValue(parsing: response.body)) ?? .null)
    }

    func attributes(_ connection: LoopbackConnection, _ user: String, key: String = "sk_test_secret") throws -> JSONValue? {
        let response = try connection.request("GET", "/v1/subscribers/\(user)", headers: ["Authorization": "Bearer \(key)"])
        return try JSONValue(parsing: response.body)["subscriber"]?["subscriber_attributes"]
    }

    @Test func setReadDeleteAndRefuse() throws {
        let fixture = try ServerFixture(demoOptions: #""webhook": {"url": "http://127.0.0.1:9/hooks"}"#)
        let service = try fixture.startService()
        let connection = try LoopbackConnection(port: service.port)
        let (status, first) = try post(
            connection, "ivy",
            #"{"attributes": {"$email": {"value": "ivy@example.com", "updated_at_ms": 100}, "plan": {"value": "gold", "updated_at_ms": 100}}}"#
        )
        #expect(status == 200, "\(first.serialized())")
        #expect(
            try attributes(connection, "ivy")
                == .object([
                    "$email": .object(["value": .string("ivy@example.com"), "updated_at_ms": .integer(100)]),
                    "plan": .object(["value": .string("gold"), "updated_at_ms": .integer(100)]),
                ]))
        // Only the secret key reads them.
        // RevenueCat: "only included in responses to requests made with a secret API key".
        #expect(try attributes(connection, "ivy", key: "pk_test_public") == nil)
        // Older loses; null deletes.
        #expect(try post(connection, "ivy", #"{"attributes": {"plan": {"value": "tin", "updated_at_ms": 50}}}"#).0 == 200)
        #expect(try attributes(connection, "ivy")?["plan"]?["value"] == .string("gold"))
        #expect(try post(connection, "ivy", #"{"attributes": {"plan": {"value": null, "updated_at_ms": 150}}}"#).0 == 200)
        #expect(try attributes(connection, "ivy")?["plan"] == nil)
        // A time in the future is now's: it does not keep later writes out.
        let far = #"{"attributes": {"plan": {"value": "forever", "updated_at_ms": 99999999999999999}}}"#
        #expect(try post(connection, "ivy", far).0 == 200)
        guard case .integer(let stamped)? = try attributes(connection, "ivy")?["plan"]?["updated_at_ms"] else {
            Issue.record("no updated_at_ms")
            return
        }
        #expect(stamped <= Int64(Date().timeIntervalSince1970 * 1000))
        Thread.sleep(forTimeInterval: 0.01)
        #expect(try post(connection, "ivy", #"{"attributes": {"plan": {"value": "later"}}}"#).0 == 200)
        #expect(try attributes(connection, "ivy")?["plan"]?["value"] == .string("later"))
        #expect(try post(connection, "ivy", #"{"attributes": {"plan": {"value": null}}}"#).0 == 200)

        // A bad key is not saved and the answer names it; the request's valid keys are saved, as
        // RevenueCat does (its SDKs take this answer as synced and never send them again).
        let (refused, error) = try post(
            connection, "ivy",
            #"{"attributes": {"$email": {"value": "nope", "updated_at_ms": 200}, "ok": {"value": "x", "updated_at_ms": 200}}}"#)
        #expect(refused == 400)
        #expect(error["code"] == .integer(7263))
        #expect(error["revenuedot_error"] == .string("invalid_attributes"))
        #expect(
            error["attribute_errors"]
                == .array([
                    .object(["key_name": .string("$email"), "message": .string("Value is not a valid email address.")])
                ]))
        #expect(try attributes(connection, "ivy")?["ok"]?["value"] == .string("x"))
        #expect(try attributes(connection, "ivy")?["$email"]?["value"] == .string("ivy@example.com"))
        let shape = try post(connection, "ivy", #"{"attrs": {}}"#).1
        #expect(shape["code"] == .integer(7264))
        #expect(shape["revenuedot_error"] == .string("bad_request"))
        // At most 50 custom attributes: new keys take the room left in key order; the rest are
        // named and not saved, while the request's other keys are.
        let many = (0..<51).map { #""k\#($0)": {"value": "v", "updated_at_ms": 300}"# }.joined(separator: ", ")
        let (tooMany, manyError) = try post(connection, "jan", #"{"attributes": {\#(many)}}"#)
        #expect(tooMany == 400)
        func named(_ error: JSONValue) -> [String] {
            error["attribute_errors"]?.arrayValue?.compactMap { $0["key_name"]?.stringValue } ?? []
        }
        #expect(named(manyError) == ["k9"])
        #expect(try attributes(connection, "jan")?["k0"]?["value"] == .string("v"))
        #expect(try attributes(connection, "jan")?["k50"]?["value"] == .string("v"))
        #expect(try attributes(connection, "jan")?["k9"] == nil)
        let mixed =
            #"{"attributes": {"k9": {"value": "v", "updated_at_ms": 300}, "#
            + #""$displayName": {"value": "Jan", "updated_at_ms": 300}, "k0": {"value": "w", "updated_at_ms": 300}}}"#
        let (limited, limitError) = try post(connection, "jan", mixed)
        #expect(limited == 400)
        #expect(named(limitError) == ["k9"])
        #expect(try attributes(connection, "jan")?["$displayName"]?["value"] == .string("Jan"))
        #expect(try attributes(connection, "jan")?["k0"]?["value"] == .string("w"))
        // A deletion in the same request makes room.
        let swap = #"{"attributes": {"k0": {"value": null, "updated_at_ms": 400}, "k9": {"value": "v", "updated_at_ms": 400}}}"#
        #expect(try post(connection, "jan", swap).0 == 200)
        #expect(try attributes(connection, "jan")?["k9"]?["value"] == .string("v"))
        #expect(try attributes(connection, "jan")?["k0"] == nil)
        #expect(
            try post(
                connection, "ivy",
                #"{"attributes": {"ok": {"value": null, "updated_at_ms": 400}, "$displayName": {"value": null, "updated_at_ms": 400}}}"#
            ).0 == 200)

        // Events carry them.
        #expect(
            try LinkingAPITests.link(connection, "ivy", try LinkingAPITests.storeKitTransaction(fixture, original: "6600000001"))
                == 200)
        service.shutdown()
        let purchase = try LinkingAPITests.events(fixture).first { $0.type == "INITIAL_PURCHASE" }
        #expect(
            purchase?.json["subscriber_attributes"]
                == .object([
                    "$email": .object(["value": .string("ivy@example.com"), "updated_at_ms": .integer(100)])
                ]))
        // And replay keeps them.
        let before = try attributesRow(fixture)
        #expect(try ReplayCommand(arguments: ["--config", fixture.configPath]).run() == 0)
        #expect(try attributesRow(fixture) == before)
    }

    func attributesRow(_ fixture: ServerFixture) throws -> [String] {
        try StoreReader(path: fixture.databasePath).read { (rows) throws(StoreError) in
            try rows.query("SELECT json FROM customers ORDER BY app_user_id").compactMap { $0.first?.textValue }
        }
    }

    /// Storage failing answers 503 (the public key reads only that), and nothing is saved.
    @Test func storageFailingIsUnavailableAndSavesNothing() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let raw = try SQLiteConnection(path: fixture.databasePath, role: .writer)
        try raw.execute(script: "ALTER TABLE customers RENAME TO customers_moved")
        let (status, body) = try post(connection, "ivy", #"{"attributes": {"plan": {"value": "gold", "updated_at_ms": 100}}}"#)
        #expect(status == 503, "\(body.serialized())")
        #expect(body["message"] == .string("storage cannot answer now; retry later"))
        try raw.execute(script: "ALTER TABLE customers_moved RENAME TO customers")
        #expect(try attributes(connection, "ivy")?["plan"] == nil)
    }

    /// Requests at once, each with 50 new custom keys: the cap is checked in the write that
    /// saves them, so one request's keys are saved and the others' are refused, whatever the
    /// order (a check before the write let 128 requests store 6,400: a customer then slow to
    /// write, enough to hold up the notifications behind it).
    @Test func requestsAtOnceCannotPassTheCapTogether() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        defer { service.shutdown() }
        let requests = 16
        let statuses = Locked<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: requests) { request in
            let keys = (0..<50).map { #""r\#(request)k\#($0)": {"value": "v", "updated_at_ms": 300}"# }
            let status = (try? LoopbackConnection(port: service.port)).flatMap {
                try? post($0, "racer", #"{"attributes": {\#(keys.joined(separator: ", "))}}"#).0
            }
            statuses.withLock { $0.append(status ?? 0) }
        }
        #expect(statuses.value.sorted() == [200] + Array(repeating: 400, count: requests - 1), "\(statuses.value)")
        let saved = try attributes(try LoopbackConnection(port: service.port), "racer")?.objectValue ?? [:]
        #expect(saved.count == 50)
        #expect(Set(saved.keys.map { $0.prefix { $0 != "k" } }).count == 1, "one request's keys: \(saved.keys.sorted())")
        // A request with no keys is answered with the customer, one unknown till then included;
        // for a known one it keeps nothing (the public key could otherwise grow the database).
        let connection = try LoopbackConnection(port: service.port)
        let actions = try AppUserIdRuleTests.count(fixture, "customer_actions")
        #expect(try post(connection, "racer", #"{"attributes": {}}"#).0 == 200)
        #expect(try AppUserIdRuleTests.count(fixture, "customer_actions") == actions)
        let (status, body) = try post(connection, "newcomer", #"{"attributes": {}}"#)
        #expect(status == 200 && body["subscriber"]?["original_app_user_id"] == .string("newcomer"), "\(body)")
    }

    /// An API body over 64 KiB is refused from its head, in RevenueCat's shape, before it is
    /// parsed; Apple's notifications keep the server's limit (1 MiB).
    @Test func aBodyOverTheAPILimitIsRefusedUnparsed() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let padding = String(repeating: "a", count: Routes.apiMaxBodyBytes)
        let (status, body) = try post(connection, "ivy", #"{"attributes": {"plan": {"value": "\#(padding)"}}}"#)
        #expect(status == 413)
        #expect(body["code"] == .integer(7226), "\(body.serialized())")
        #expect(body["message"]?.stringValue?.contains("larger than \(Routes.apiMaxBodyBytes) bytes") == true)
        let notification = try LoopbackConnection(port: service.port).request(
            "POST", "/v1/apple/notifications/demo", body: Data(#"{"signedPayload": "\#(padding)"}"#.utf8))
        #expect(notification.status == 401)
    }
}
