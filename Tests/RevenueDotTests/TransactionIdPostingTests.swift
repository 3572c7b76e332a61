import AppStore
import AppStoreServerAPISimulator
import Foundation
import LoopbackClient
import Testing

@testable import RevenueDot

/// `POST /v1/subscribers/{id}/transactions` with `{"transactionId": "..."}`: an app that knows
/// only the id links the purchase; RevenueDot fetches it from Apple and verifies it first.
@Suite("Posting a transaction by its id")
struct TransactionIdPostingTests {
    func post(_ body: JSONValue, user: String, port: UInt16) throws -> LoopbackResponse {
        try LoopbackConnection(port: port).request(
            "POST", "/v1/subscribers/\(user)/transactions", headers: ["Authorization": "Bearer pk_test_public"],
            body: Data(body.serialized().utf8))
    }

    @Test func aTransactionAppleKnowsIsFetchedVerifiedAndLinked() throws {
        let world = try AppleAPIWorld()
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        world.store.addTransaction(
            [
                "transactionId": .string("2000000001"), "originalTransactionId": .string("2000000001"),
                "bundleId": .string("com.example.app"), "productId": .string("pro.monthly"),
                "purchaseDate": .integer(now - 60_000), "originalPurchaseDate": .integer(now - 60_000),
                "expiresDate": .integer(now + 86_400_000), "type": .string("Auto-Renewable Subscription"),
                "inAppOwnershipType": .string("PURCHASED"), "environment": .string("Sandbox"),
                "transactionReason": .string("PURCHASE"),
            ], bundleId: "com.example.app")
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        try service.start()
        defer { service.shutdown() }

        let linked = try post(.object(["transactionId": .string("2000000001")]), user: "alice", port: service.port)
        #expect(linked.status == 200, "\(linked.text)")
        let body = try JSONValue(parsing: linked.body)
        #expect(body["subscriber"]?["subscriptions"]?["pro.monthly"]?["store_transaction_id"] == .string("2000000001"))
        #expect(body["subscriber"]?["entitlements"]?["pro"] != nil)
        #expect(world.store.requestCount("transaction-info") == 1)

        let unknown = try post(.object(["transactionId": .string("9999999999")]), user: "alice", port: service.port)
        #expect(unknown.status == 404)
        #expect(unknown.text.contains("transaction_not_found"))

        world.store.inject(.status(500, code: 5_000_000, retryAfter: nil), count: 10)
        let failing = try post(.object(["transactionId": .string("2000000001")]), user: "bob", port: service.port)
        #expect(failing.status == 502)
        #expect(failing.text.contains("GeneralInternalError"))

        #expect(try post(.object(["transactionId": .string("")]), user: "alice", port: service.port).status == 400)
        #expect(try post(.object(["nothing": .null]), user: "alice", port: service.port).status == 400)
    }

    @Test func anAppWithoutAKeyCannotAskApple() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        defer { service.shutdown() }
        let answer = try post(.object(["transactionId": .string("1")]), user: "alice", port: service.port)
        #expect(answer.status == 409)
        #expect(answer.text.contains("no inAppPurchaseKey"))
    }
}
