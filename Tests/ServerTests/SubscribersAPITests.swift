import AppStore
import Foundation
import JSON
import LoopbackClient
import Subscriptions
import Testing

@testable import Server
@_spi(StoreSQL) @testable import Storage
@testable import Tools

@Suite("GET /v1/subscribers and POST .../transactions")
struct SubscribersAPITests {
    let fixture: ServerFixture
    let service: RevenueDotService
    let connection: LoopbackConnection

    init() throws {
        fixture = try ServerFixture()
        service = try fixture.startService()
        connection = try LoopbackConnection(port: service.port)
    }

    func get(_ user: String, key: String? = "sk_test_secret") throws -> LoopbackResponse {
        try connection.request("GET", "/v1/subscribers/\(user)", headers: key.map { ["Authorization": "Bearer \($0)"] } ?? [:])
    }

    func post(_ user: String, _ signed: String, key: String = "pk_test_public") throws -> LoopbackResponse {
        try connection.postTransaction(signed, for: user, key: key)
    }

    /// A StoreKit 2 transaction for `product`, signed over the test chain.
    func transaction(original: String, product: String = "pro.monthly", token: String? = nil) throws -> String {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var payload: [String: JSONValue] = [
            "transactionId": .string(original), "originalTransactionId": .string(original),
            "bundleId": .string("com.example.app"),
            "productId": .string(product), "purchaseDate": .integer(now), "originalPurchaseDate": .integer(now),
            "expiresDate": .integer(now + 30 * 86_400_000), "type": .string("Auto-Renewable Subscription"),
            "inAppOwnershipType": .string("PURCHASED"), "environment": .string("Sandbox"), "signedDate": .integer(now),
            "transactionReason": .string("PURCHASE"), "price": .integer(9990), "currency": .string("USD"),
        ]
        payload["appAccountToken"] = token.map(JSONValue.string)
        return try fixture.signer.sign(.object(payload))
    }

    @Test func keysAreRequiredAndChecked() throws {
        defer { service.shutdown() }
        #expect(try get("alice", key: nil).status == 401)
        #expect(try get("alice", key: "sk_test_secreT").status == 401)
        // HEAD (a probe, curl -I) makes nobody: 404 for a customer not known.
        let head = { (user: String) in
            try connection.request("HEAD", "/v1/subscribers/\(user)", headers: ["Authorization": "Bearer pk_test_public"])
        }
        #expect(try head("alice").status == 404)
        // Get or create, as RevenueCat: 201 the first time, 200 after.
        #expect(try get("alice", key: "pk_test_public").status == 201)
        #expect(try head("alice").status == 200)
        #expect(try get("alice", key: "pk_test_public").status == 200)
        // The scheme name is case-insensitive.
        let lower = try connection.request("GET", "/v1/subscribers/alice", headers: ["Authorization": "bearer sk_test_secret"])
        #expect(lower.status == 200)
        #expect(APIKeys.equal(Array("abc".utf8), Array("abc".utf8)))
        #expect(!APIKeys.equal(Array("abc".utf8), Array("abcd".utf8)))
    }

    @Test func unknownCustomerIsAnEmptySubscriber() throws {
        defer { service.shutdown() }
        let body = try JSONValue(parsing: try get("nobody").body)
        #expect(body["subscriber"]?["original_app_user_id"] == .string("nobody"))
        #expect(body["subscriber"]?["entitlements"] == .object([:]))
        #expect(body["subscriber"]?["subscriptions"] == .object([:]))
    }

    @Test func postedTransactionLinksThePurchaseAndGrantsTheEntitlement() throws {
        defer { service.shutdown() }
        let response = try post("alice", try transaction(original: "5000000001"))
        #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
        let body = try JSONValue(parsing: try get("alice").body)
        let subscription = body["subscriber"]?["subscriptions"]?["pro.monthly"]
        #expect(subscription?["store_transaction_id"] == .string("5000000001"))
        #expect(subscription?["is_sandbox"] == .bool(true))
        #expect(body["subscriber"]?["entitlements"]?["pro"]?["product_identifier"] == .string("pro.monthly"))

        // A later notification about that purchase (a renewal) reaches alice's state.
        let renewal = try fixture.signer.notification(type: "DID_RENEW", originalTransactionId: "5000000001")
        #expect(try connection.postNotification(renewal).status == 200)
        let after = try JSONValue(parsing: try get("alice").body)
        #expect(after["subscriber"]?["subscriptions"]?["pro.monthly"] != nil)
    }

    /// `productDisplayNames` names products as RevenueCat's dashboard does: `display_name`.
    @Test func aConfiguredDisplayNameIsServed() throws {
        service.shutdown()
        let named = try ServerFixture(demoOptions: #""productDisplayNames": {"pro.monthly": "Pro Monthly"}"#)
        let server = try named.startService()
        defer { server.shutdown() }
        let connection = try LoopbackConnection(port: server.port)
        let posted = try connection.postTransaction(try transaction(original: "5000000007"), for: "dana", key: "pk_test_public")
        #expect(posted.status == 200)
        let answer = try connection.request("GET", "/v1/subscribers/dana", headers: ["Authorization": "Bearer sk_test_secret"])
        let body = try JSONValue(parsing: answer.body)
        #expect(body["subscriber"]?["subscriptions"]?["pro.monthly"]?["display_name"] == .string("Pro Monthly"), "\(body)")
    }

    /// An `app_user_id` is one path segment whatever it holds: percent-encoded, a colon or a
    /// space stays part of it, and an escaped slash is decoded after routing, to be refused as
    /// RevenueCat refuses it (it used to be decoded before routing, so `team%2Fbob` was a 404).
    @Test func customerIdsWithEscapedCharactersAreOneSegment() throws {
        defer { service.shutdown() }
        let response = try post("team%3Abob%20%C3%A9", try transaction(original: "5000000004"))
        #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
        let body = try JSONValue(parsing: try get("team%3Abob%20%C3%A9").body)
        #expect(body["subscriber"]?["original_app_user_id"] == .string("team:bob é"))
        #expect(body["subscriber"]?["subscriptions"]?["pro.monthly"]?["store_transaction_id"] == .string("5000000004"))
        #expect(try get("team/bob%20%C3%A9").status == 404)
        let slash = try get("team%2Fbob")
        #expect(slash.status == 400)
        #expect(String(decoding: slash.body, as: UTF8.self).contains("holds a slash"))
    }

    /// Escapes that decode to bytes that are not UTF-8 used to become U+FFFD, so `%FF`, `%FE` and
    /// `%EF%BF%BD` named one customer: each is a 400 now, and a real U+FFFD is its own customer.
    @Test(arguments: ["%FF", "%FE", "bob%C3", "%C0%AF", "%ED%A0%80"])
    func customerIdsThatAreNotUTF8AreRefused(escaped: String) throws {
        defer { service.shutdown() }
        let response = try post(escaped, try transaction(original: "5000000005"))
        #expect(response.status == 400)
        #expect(String(decoding: response.body, as: UTF8.self).contains("not UTF-8"))
        // In RevenueCat's shape, as every answer on its paths.
        let refusal = try JSONValue(parsing: response.body)
        #expect(refusal["code"] == .integer(7226))
        #expect(refusal["revenuedot_error"] == .string("bad_request"))
        // Refused from the head, before its body: that connection is closed.
        let connection = try LoopbackConnection(port: service.port)
        let headers = ["Authorization": "Bearer sk_test_secret"]
        #expect(try connection.request("GET", "/v1/subscribers/\(escaped)", headers: headers).status == 400)
        let replacement = try JSONValue(
            parsing: try connection.request("GET", "/v1/subscribers/%EF%BF%BD", headers: headers).body)
        #expect(replacement["subscriber"]?["original_app_user_id"] == .string("\u{FFFD}"))
        #expect(replacement["subscriber"]?["subscriptions"] == .object([:]))
        #expect(try connection.request("GET", "/health").status == 200)
    }

    /// The server's own refusals on RevenueCat's paths (no such route, a method not taken) come
    /// in RevenueCat's shape too; RevenueDot's own paths keep theirs.
    @Test func routerRefusalsOnRevenueCatPathsAreInItsShape() throws {
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let headers = ["Authorization": "Bearer sk_test_secret"]
        for (method, path, status, code) in [
            ("GET", "/v1/subscribers/bob/nothing", 404, 7259), ("PUT", "/v1/subscribers/bob", 405, 7226),
            ("GET", "/v1/subscribers", 404, 7259),
            // Routed with its segments decoded, and shaped the same way.
            ("PUT", "/v1/%73ubscribers/bob", 405, 7226),
        ] {
            let response = try connection.request(method, path, headers: headers)
            #expect(response.status == status, "\(method) \(path)")
            let body = try JSONValue(parsing: response.body)
            #expect(body["code"] == .integer(Int64(code)), "\(method) \(path)")
            #expect(body["message"]?.stringValue?.isEmpty == false)
            // The headers of the server's answer stay (Allow with a 405).
            if status == 405 { #expect(response.headers["allow"] == "DELETE, GET, HEAD") }
        }
        let own = try JSONValue(parsing: try connection.request("GET", "/v1/events/%FF", headers: headers).body)
        #expect(own["error"]?["code"] == .string("bad_request"))
    }

    /// Raw bytes that are not UTF-8, sent unescaped, are refused as their escapes are: they
    /// used to become U+FFFD, so raw `FF`, raw `FE` and `%EF%BF%BD` named one customer.
    @Test(arguments: [[0xFF], [0xFE], [0x62, 0x6F, 0x62, 0xC3], [0xC3, 0xA9, 0xFF]] as [[UInt8]])
    func rawCustomerIdBytesThatAreNotUTF8AreRefused(bytes: [UInt8]) throws {
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        var request = Data("GET /v1/subscribers/".utf8)
        request.append(contentsOf: bytes)
        request.append(Data(" HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer sk_test_secret\r\n\r\n".utf8))
        try connection.sendRaw(request)
        let response = try connection.readResponse()
        #expect(response.status == 400)
        #expect(String(decoding: response.body, as: UTF8.self).contains("not UTF-8"))
        let fresh = try LoopbackConnection(port: service.port)
        #expect(try fresh.request("GET", "/health").status == 200)
        // Raw UTF-8 is a customer id like its escapes.
        let utf8 = Data(
            "GET /v1/subscribers/b\u{E9}b HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer sk_test_secret\r\n\r\n".utf8)
        try fresh.sendRaw(utf8)
        let named = try JSONValue(parsing: try fresh.readResponse().body)
        #expect(named["subscriber"]?["original_app_user_id"] == .string("b\u{E9}b"))
    }

    /// Signed, but about no purchase: refused with what is missing, and nothing is linked.
    @Test func transactionWithoutItsIdsIsRefused() throws {
        defer { service.shutdown() }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let signed = try fixture.signer.sign(
            .object([
                "transactionId": .string("5000000009"), "bundleId": .string("com.example.app"),
                "productId": .string("pro.monthly"), "purchaseDate": .integer(now), "environment": .string("Sandbox"),
                "signedDate": .integer(now), "type": .string("Auto-Renewable Subscription"),
            ]))
        let response = try post("nemo", signed)
        #expect(response.status == 422)
        // RevenueCat's error shape on RevenueCat's paths: its code, and RevenueDot's beside it.
        let error = try JSONValue(parsing: response.body)
        #expect(error["message"] == .string("the signed transaction has no originalTransactionId"))
        #expect(error["code"] == .integer(7103))
        #expect(error["revenuedot_error"] == .string("invalid_transaction"))
        #expect(try JSONValue(parsing: try get("nemo").body)["subscriber"]?["subscriptions"] == .object([:]))
    }

    @Test func forgedTransactionIsRefused() throws {
        defer { service.shutdown() }
        let forger = SignedNotifications(chain: try TestChain(name: "Forger"))
        let forged = try forger.sign(.object(["transactionId": .string("1"), "bundleId": .string("com.example.app")]))
        #expect(try post("mallory", forged).status == 401)
        #expect(try JSONValue(parsing: try get("mallory").body)["subscriber"]?["subscriptions"] == .object([:]))
    }

    /// The public key ships inside the app, so a refusal says what is wrong with the posted data
    /// without naming what the server is configured to accept.
    @Test func aRefusalDoesNotNameTheConfiguration() throws {
        defer { service.shutdown() }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        for (bundle, environment, code) in [
            ("com.other.app", "Sandbox", "invalidAppIdentifier"), ("com.example.app", "Xcode", "invalidEnvironment"),
        ] {
            let signed = try fixture.signer.sign(
                .object([
                    "transactionId": .string("5200000001"), "originalTransactionId": .string("5200000001"),
                    "bundleId": .string(bundle), "productId": .string("pro.monthly"), "purchaseDate": .integer(now),
                    "environment": .string(environment), "signedDate": .integer(now),
                    "type": .string("Auto-Renewable Subscription"),
                ]))
            let response = try post("mallory", signed)
            #expect(response.status == 401)
            let error = try JSONValue(parsing: response.body)
            #expect(error["revenuedot_error"] == .string(code), "\(response.text)")
            for configured in ["com.example.app", "1234", "Sandbox", "Production"] {
                #expect(!response.text.contains(configured), "\(response.text)")
            }
        }
    }

    /// `GET` renders the stored views; they must say what the full state says, also for a purchase
    /// written before views existed (no view row: read from its state), and after a transfer.
    @Test func storedViewsAnswerAsTheFullStateDoes() throws {
        try #require(try post("alice", try transaction(original: "5100000001")).status == 200)
        try #require(try post("alice", try transaction(original: "5100000002", product: "pro.yearly")).status == 200)
        try #require(try post("bob", try transaction(original: "5100000003", product: "pro.weekly")).status == 200)
        // bob's purchase moves to alice: its view must move with it. (Before the refund: a copy
        // signed after a refund without its revocationDate would say the refund was reversed.)
        try #require(try post("alice", try transaction(original: "5100000003", product: "pro.weekly")).status == 200)
        for (type, subtype, original, product) in [
            ("DID_FAIL_TO_RENEW", "GRACE_PERIOD", "5100000001", "pro.monthly"), ("REFUND", nil, "5100000003", "pro.weekly"),
        ] {
            let payload = try fixture.signer.notification(
                type: type, subtype: subtype, originalTransactionId: original, productId: product, transactionId: original)
            try #require(try connection.postNotification(payload).status == 200)
        }
        service.shutdown()

        let app = try fixture.config().apps[0]
        let store = try Store(path: fixture.databasePath)
        defer { store.close() }
        let now = Date()
        func fromViews(_ user: String) throws -> JSONValue {
            let found = try store.read { rows in try? LedgerRows.customerView(user, app: app.ledger, from: rows) }
            return SubscriberInfo.json(
                for: user, customer: found?.customer, purchases: found?.purchases ?? [], entitlements: app.entitlements, at: now)
        }
        func fromState(_ user: String) throws -> JSONValue {
            let ledger = try store.read { rows in (try? LedgerRows.customerSlice(user, app: app.ledger, from: rows)) ?? Ledger() }
            return SubscriberInfo.json(for: user, in: ledger, at: now)
        }
        let alice = try fromViews("alice")
        #expect(alice == (try fromState("alice")))
        let subscriptions = alice["subscriber"]?["subscriptions"]
        #expect(subscriptions?["pro.monthly"]?["billing_issues_detected_at"]?.stringValue != nil)
        #expect(subscriptions?["pro.weekly"]?["refunded_at"]?.stringValue != nil)
        #expect(subscriptions?["pro.yearly"]?["expires_date"]?.stringValue != nil)
        #expect(try fromViews("bob") == (try fromState("bob")))
        #expect(try fromViews("bob")["subscriber"]?["subscriptions"] == .object([:]))
        let views = try store.read { (rows) throws(StoreError) -> [[SQLValue]] in
            try rows.query("SELECT owner, count(*) FROM purchase_views GROUP BY owner")
        }
        #expect(views == [[SQLValue.text("alice"), SQLValue.integer(3)]])

        // Rows from before migration 6 have no view: the answer is the same, read from the state.
        try store.write { transaction in try transaction.execute("DELETE FROM purchase_views") }
        #expect(try fromViews("alice") == alice)
    }
}
