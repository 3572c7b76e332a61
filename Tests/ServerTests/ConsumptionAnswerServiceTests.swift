import AppStore
import AppStoreServerAPI
import AppStoreServerAPISimulator
import Foundation
import JSON
import LoopbackClient
import Testing

@testable import Server
@testable import Storage

/// Answers to consumption requests from a running server, as Apple's faithful stand-in takes
/// them: version 1 for an Advanced Commerce purchase, and each customer's own preference.
@Suite("Consumption answers from a running server")
struct ConsumptionAnswerServiceTests {
    static let token = "6b1f4a52-0c4e-4a53-9d27-1c8a3b6b0f11"

    func world() throws -> AppleAPIWorld {
        try AppleAPIWorld(
            consumption:
                #"{"enabled": true, "customerConsented": true, "sampleContentProvided": true, "refundPreference": "DECLINE", "oneTimeConsumptionPercentage": 40000}"#
        )
    }

    /// A CONSUMPTION_REQUEST about a purchase made an hour ago, which Apple's stand-in knows.
    func request(_ world: AppleAPIWorld, transactionId: String, type: String, extra: [String: JSONValue] = [:]) throws
        -> String
    {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var transaction: [String: JSONValue] = [
            "transactionId": .string(transactionId), "originalTransactionId": .string(transactionId),
            "bundleId": .string("com.example.app"), "productId": .string("coins.100"), "purchaseDate": .integer(now - 3_600_000),
            "originalPurchaseDate": .integer(now - 3_600_000), "type": .string(type),
            "inAppOwnershipType": .string("PURCHASED"), "environment": .string("Sandbox"), "signedDate": .integer(now),
            "transactionReason": .string("PURCHASE"), "appAccountToken": .string(Self.token),
        ]
        transaction.merge(extra) { $1 }
        world.store.addTransaction(transaction, bundleId: "com.example.app")
        return try world.signer.sign(
            .object([
                "notificationType": .string("CONSUMPTION_REQUEST"), "notificationUUID": .string(UUID().uuidString.lowercased()),
                "version": .string("2.0"), "signedDate": .integer(now),
                "data": .object([
                    "appAppleId": .integer(1234), "bundleId": .string("com.example.app"), "environment": .string("Sandbox"),
                    "signedTransactionInfo": .string(try world.signer.sign(.object(transaction))),
                    "consumptionRequestReason": .string("UNINTENDED_PURCHASE"),
                ]),
            ]))
    }

    @Test func anAdvancedCommercePurchaseIsAnsweredInVersionOne() throws {
        let world = try world()
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        try service.start()
        defer { service.shutdown() }
        let info: JSONValue = .object([
            "requestReferenceId": .string("0b8f4f5e-7c1d-4d55-8a8e-5d2a1f0c9e10"), "taxCode": .string("C003-00-2"),
            "items": .array([.object(["SKU": .string("COINS_100"), "displayName": .string("Coins"), "price": .integer(990)])]),
        ])
        let signed = try request(
            world, transactionId: "5100000001", type: "Consumable", extra: ["advancedCommerceInfo": info])
        #expect(try LoopbackConnection(port: service.port).postNotification(signed).status == 200)
        service.answerConsumptionRequests()
        #expect(world.store.consumptionRequests.isEmpty)
        let sent = try #require(world.store.consumptionRequestsV1.first)
        #expect(sent.transactionId == "5100000001")
        #expect(sent.request["consumptionStatus"] == .integer(2))
        #expect(sent.request["deliveryStatus"] == .integer(0))
        #expect(sent.request["refundPreference"] == .integer(2))
        #expect(sent.request["appAccountToken"] == .string(Self.token))
        #expect(service.metrics.consumptionAnswers.counts["sent"] == 1)
    }

    /// `$appleRefundHandlingPreference` on the customer who owns the purchase replaces the
    /// configured preference; DO_NOT_HANDLE sends nothing.
    @Test func theOwnersAttributeSetsTheirAnswer() throws {
        let world = try world()
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        try service.start()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        func prefer(_ value: String) throws {
            let body = #"{"attributes": {"$appleRefundHandlingPreference": {"value": "\#(value)"}}}"#
            let response = try connection.request(
                "POST", "/v1/subscribers/\(Self.token)/attributes",
                headers: ["Authorization": "Bearer sk_test_secret", "Content-Type": "application/json"], body: Data(body.utf8))
            #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
        }
        try prefer("GRANT_REFUND")
        #expect(
            try connection.postNotification(try request(world, transactionId: "5200000001", type: "Consumable")).status == 200)
        service.answerConsumptionRequests()
        let sent = try #require(world.store.consumptionRequests.first)
        #expect(sent.request["refundPreference"] == .string("GRANT_FULL"), "\(sent.request)")

        try prefer("DO_NOT_HANDLE")
        let uuidRequest = try request(world, transactionId: "5200000002", type: "Consumable")
        #expect(try connection.postNotification(uuidRequest).status == 200)
        service.answerConsumptionRequests()
        #expect(world.store.consumptionRequests.count == 1)
        #expect(service.metrics.consumptionAnswers.counts["skipped"] == 1)
    }
}
