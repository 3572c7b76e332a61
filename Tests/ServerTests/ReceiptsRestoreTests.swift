import Foundation
import JSON
import LoopbackClient
import Testing

@testable import Server

/// A restore through `POST /v1/receipts`: the SDK posts one transaction of the Apple account;
/// with the app's `inAppPurchaseKey`, RevenueDot reads the account's history from Apple and links
/// its other purchases too, as RevenueCat does.
@Suite("RevenueCat receipts: restores")
struct ReceiptsRestoreTests {
    static func add(_ world: AppleAPIWorld, _ id: String, type: String, product: String, account: String) {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var payload: [String: JSONValue] = [
            "transactionId": .string(id), "originalTransactionId": .string(id), "bundleId": .string("com.example.app"),
            "productId": .string(product), "purchaseDate": .integer(now - 60_000),
            "originalPurchaseDate": .integer(now - 60_000), "type": .string(type),
            "inAppOwnershipType": .string("PURCHASED"), "environment": .string("Sandbox"),
            "transactionReason": .string("PURCHASE"), "signedDate": .integer(now - 60_000),
        ]
        if type == "Auto-Renewable Subscription" { payload["expiresDate"] = .integer(now + 86_400_000) }
        world.store.addTransaction(payload, bundleId: "com.example.app", account: account)
    }

    @Test(arguments: [true, false])
    func aRestoreLinksTheAccountsOtherPurchases(isRestore: Bool) throws {
        let world = try AppleAPIWorld()
        Self.add(world, "2100000001", type: "Auto-Renewable Subscription", product: "pro.monthly", account: "rita's")
        Self.add(world, "2100000002", type: "Non-Consumable", product: "lifetime", account: "rita's")
        Self.add(world, "2100000003", type: "Non-Consumable", product: "lifetime", account: "someone else's")
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        try service.start()
        defer { service.shutdown() }
        let posted = try world.signer.sign(
            .object([
                "transactionId": .string("2100000001"), "originalTransactionId": .string("2100000001"),
                "bundleId": .string("com.example.app"), "productId": .string("pro.monthly"),
                "purchaseDate": .integer(Int64(Date().timeIntervalSince1970 * 1000) - 60_000),
                "expiresDate": .integer(Int64(Date().timeIntervalSince1970 * 1000) + 86_400_000),
                "type": .string("Auto-Renewable Subscription"), "inAppOwnershipType": .string("PURCHASED"),
                "environment": .string("Sandbox"),
            ]))
        let answer = try LoopbackConnection(port: service.port).request(
            "POST", "/v1/receipts", headers: ["Authorization": "Bearer pk_test_public"],
            body: Data(
                JSONValue.object([
                    "app_user_id": .string("rita"), "fetch_token": .string(posted), "is_restore": .bool(isRestore),
                ]).serialized().utf8))
        #expect(answer.status == 200, "\(answer.text)")
        let subscriber = try JSONValue(parsing: answer.body)["subscriber"]
        #expect(subscriber?["subscriptions"]?["pro.monthly"] != nil, "\(answer.text)")
        // Only a restore stands for the whole account, and only for the poster's account.
        #expect((subscriber?["non_subscriptions"]?["lifetime"] != nil) == isRestore, "\(answer.text)")
        #expect(world.store.requestCount("transaction-history") == (isRestore ? 1 : 0))
        if case .array(let lifetime)? = subscriber?["non_subscriptions"]?["lifetime"] {
            #expect(lifetime.count == 1 && lifetime.first?["store_transaction_id"] == .string("2100000002"))
        }
        // The same restore again and again (anyone with the public key and a purchase can post
        // it) reads the account's history once in ten minutes, leaving Apple's lookup slots to
        // other customers; what the first linked stays linked.
        guard isRestore else { return }
        for _ in 0..<5 {
            let again = try LoopbackConnection(port: service.port).request(
                "POST", "/v1/receipts", headers: ["Authorization": "Bearer pk_test_public"],
                body: Data(
                    JSONValue.object(["app_user_id": .string("rita"), "fetch_token": .string(posted), "is_restore": .bool(true)])
                        .serialized().utf8))
            #expect(again.status == 200)
            #expect(try JSONValue(parsing: again.body)["subscriber"]?["non_subscriptions"]?["lifetime"] != nil)
        }
        #expect(world.store.requestCount("transaction-history") == 1)
        // Another customer restoring the account then links from the same reading.
        let other = try LoopbackConnection(port: service.port).request(
            "POST", "/v1/receipts", headers: ["Authorization": "Bearer pk_test_public"],
            body: Data(
                JSONValue.object(["app_user_id": .string("sam"), "fetch_token": .string(posted), "is_restore": .bool(true)])
                    .serialized().utf8))
        #expect(try JSONValue(parsing: other.body)["subscriber"]?["non_subscriptions"]?["lifetime"] != nil, "\(other.text)")
        #expect(world.store.requestCount("transaction-history") == 1)
    }
}
