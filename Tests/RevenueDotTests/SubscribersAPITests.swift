import AppStore
import Foundation
import LoopbackClient
import Testing

@testable import RevenueDot

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
        #expect(try get("alice", key: "pk_test_public").status == 200)
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

    @Test func forgedTransactionIsRefused() throws {
        defer { service.shutdown() }
        let forger = SignedNotifications(chain: try TestChain(name: "Forger"))
        let forged = try forger.sign(.object(["transactionId": .string("1"), "bundleId": .string("com.example.app")]))
        #expect(try post("mallory", forged).status == 401)
        #expect(try JSONValue(parsing: try get("mallory").body)["subscriber"]?["subscriptions"] == .object([:]))
    }
}
