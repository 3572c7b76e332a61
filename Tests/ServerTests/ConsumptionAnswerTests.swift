import AppStore
import AppStoreServerAPI
import AppStoreServerAPISimulator
import Foundation
import JSON
import LoopbackClient
import Testing
import Threads

@testable import Server
@testable import Storage
@testable import Tools

/// Apple's consumption requests answered from what RevenueDot stores and is configured with,
/// sent once, retried until Apple takes it or its 12 hours end.
@Suite("Answers to consumption requests")
struct ConsumptionAnswerTests {
    func world(consented: Bool = true) throws -> AppleAPIWorld {
        try AppleAPIWorld(
            consumption:
                #"{"enabled": true, "customerConsented": \#(consented), "sampleContentProvided": true, "refundPreference": "DECLINE"}"#
        )
    }

    /// A CONSUMPTION_REQUEST about a subscription bought `daysAgo` days ago for 30 days.
    func request(_ world: AppleAPIWorld, transactionId: String, daysAgo: Int64) throws -> (uuid: String, signed: String) {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let bought = now - daysAgo * 86_400_000
        let transaction: [String: JSONValue] = [
            "transactionId": .string(transactionId), "originalTransactionId": .string(transactionId),
            "bundleId": .string("com.example.app"), "productId": .string("pro.monthly"), "purchaseDate": .integer(bought),
            "originalPurchaseDate": .integer(bought), "expiresDate": .integer(bought + 30 * 86_400_000),
            "type": .string("Auto-Renewable Subscription"), "inAppOwnershipType": .string("PURCHASED"),
            "environment": .string("Sandbox"), "signedDate": .integer(now), "transactionReason": .string("PURCHASE"),
        ]
        world.store.addTransaction(transaction, bundleId: "com.example.app")
        let uuid = UUID().uuidString.lowercased()
        let signed = try world.signer.sign(
            .object([
                "notificationType": .string("CONSUMPTION_REQUEST"), "notificationUUID": .string(uuid),
                "version": .string("2.0"), "signedDate": .integer(now),
                "data": .object([
                    "appAppleId": .integer(1234), "bundleId": .string("com.example.app"), "environment": .string("Sandbox"),
                    "signedTransactionInfo": .string(try world.signer.sign(.object(transaction))),
                    "consumptionRequestReason": .string("UNINTENDED_PURCHASE"),
                ]),
            ]))
        return (uuid, signed)
    }

    func answer(_ world: AppleAPIWorld, _ uuid: String) throws -> ConsumptionAnswer? {
        try StoreReader(path: world.databasePath).consumptionAnswer(notificationUUID: uuid)
    }

    @Test func aRequestIsAnsweredOnceWithTheStoredFacts() throws {
        let world = try world()
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        try service.start()
        defer { service.shutdown() }
        let (uuid, signed) = try request(world, transactionId: "5000000001", daysAgo: 15)
        #expect(try LoopbackConnection(port: service.port).postNotification(signed).status == 200)
        service.answerConsumptionRequests()
        let sent = try #require(world.store.consumptionRequests.first)
        #expect(sent.transactionId == "5000000001")
        #expect(sent.request["customerConsented"] == .bool(true))
        #expect(sent.request["sampleContentProvided"] == .bool(true))
        #expect(sent.request["deliveryStatus"] == .string("DELIVERED"))
        #expect(sent.request["refundPreference"] == .string("DECLINE"))
        // Apple computes a subscription's consumption itself, and refuses a share sent for one.
        #expect(sent.request["consumptionPercentage"] == nil, "\(sent.request)")
        let stored = try #require(try answer(world, uuid))
        #expect(stored.status == .sent)
        #expect(stored.attempts == 1)
        // Once: a second pass sends nothing.
        service.answerConsumptionRequests()
        #expect(world.store.consumptionRequests.count == 1)
        #expect(service.metrics.consumptionAnswers.counts["sent"] == 1)
    }

    /// A 5xx may pass; so may a refused key (401), which a fixed configuration and a reload
    /// cure within Apple's 12 hours: both are tried again later, not settled as failed.
    @Test(arguments: [503, 401])
    func appleFailingIsRetriedLaterAndNoConsentSendsNothing(status: Int) throws {
        let world = try world()
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        try service.start()
        defer { service.shutdown() }
        let (uuid, signed) = try request(world, transactionId: "5000000002", daysAgo: 1)
        // Failing before the request is stored: the service's own worker may answer it at once.
        world.store.inject(.status(status, code: nil, retryAfter: nil), count: 10, endpoint: "send-consumption")
        #expect(try LoopbackConnection(port: service.port).postNotification(signed).status == 200)
        service.answerConsumptionRequests()
        let pending = try #require(try answer(world, uuid))
        #expect(pending.status == .pending)
        #expect(pending.attempts == 1)
        #expect(pending.nextAttemptAtMs > UnixTime.nowMs + 250_000)
        #expect(pending.lastError?.contains("\(status)") == true, "\(pending)")
        #expect(world.store.consumptionRequests.isEmpty)

        let unconsented = try self.world(consented: false)
        let other = try RevenueDotService(config: try unconsented.config(), log: { _ in })
        try other.start()
        defer { other.shutdown() }
        let (skippedUUID, skippedSigned) = try request(unconsented, transactionId: "5000000003", daysAgo: 1)
        #expect(try LoopbackConnection(port: other.port).postNotification(skippedSigned).status == 200)
        other.answerConsumptionRequests()
        #expect(try answer(unconsented, skippedUUID)?.status == .skipped)
        #expect(unconsented.store.consumptionRequests.isEmpty)
        #expect(unconsented.store.requestCount("send-consumption") == 0)
    }

    /// Storage that cannot say what the request was about leaves the answer claimed for a later
    /// pass: it is not skipped as if the transaction were not stored.
    @Test func aFailedReadLeavesTheAnswerForALaterPass() throws {
        let world = try world()
        let (uuid, signed) = try request(world, transactionId: "5000000004", daysAgo: 1)
        // Stored and applied by a server that answers none, so that only this test's pass does.
        var quiet = try world.config()
        quiet.appleAPI.consumption.enabled = false
        let service = try RevenueDotService(config: quiet, log: { _ in })
        try service.start()
        #expect(try LoopbackConnection(port: service.port).postNotification(signed).status == 200)
        service.shutdown()
        let config = try world.config()
        let store = try Store(path: world.databasePath)
        defer { store.close() }
        let answering = ConsumptionAnswering(
            config: config, store: store, clients: AppleAPIClientPool(config: config.appleAPI, rates: AppleAPIRates()),
            metrics: Metrics(), clock: { Date() }, log: Log(sink: { _ in }))
        _ = try store.enqueueConsumptionRequests(appIds: ["demo"], sinceMs: 0, nowMs: UnixTime.nowMs)
        let pending = try #require(try answer(world, uuid))
        try SQLiteConnection(path: world.databasePath, role: .writer)
            .execute(script: "ALTER TABLE notifications RENAME COLUMN transaction_json TO moved")
        #expect(throws: StoreError.self) { try answering.handle(pending, nowMs: UnixTime.nowMs) }
        #expect(world.store.requestCount("send-consumption") == 0)
        try SQLiteConnection(path: world.databasePath, role: .writer)
            .execute(script: "ALTER TABLE notifications RENAME COLUMN moved TO transaction_json")
        #expect(try answering.handle(pending, nowMs: UnixTime.nowMs).status == .sent)
        // A stored transaction that does not decode never will: the answer fails, saying why.
        try SQLiteConnection(path: world.databasePath, role: .writer)
            .execute(script: "UPDATE notifications SET transaction_json = '{\"type\": 7}'")
        let failed = try answering.handle(pending, nowMs: UnixTime.nowMs)
        #expect(failed.status == .failed && failed.lastError?.contains("does not decode") == true, "\(failed)")
    }

    /// Apple's rules for consumptionPercentage: never for an auto-renewable subscription (Apple
    /// computes it), 0 for what was not delivered, and above 0 with GRANT_PRORATED.
    @Test(
        arguments: [
            // delivery, preference, product type, configured share, expected share
            (DeliveryStatus.delivered, RefundPreference?.none, "Auto-Renewable Subscription", Int32?(70_000), Int32?.none),
            (.delivered, .grantProrated, "Auto-Renewable Subscription", 70_000, nil),
            (.undeliveredServerOutage, nil, "Auto-Renewable Subscription", 70_000, nil),
            (.undeliveredServerOutage, .grantProrated, "Auto-Renewable Subscription", nil, nil),
            (.delivered, nil, "Consumable", 70_000, 70_000),
            (.delivered, .grantProrated, "Consumable", 70_000, 70_000),
            (.delivered, nil, "Consumable", nil, nil),
            (.undeliveredServerOutage, nil, "Consumable", 70_000, 0),
        ] as [(DeliveryStatus, RefundPreference?, String, Int32?, Int32?)])
    func theShareFollowsApplesRules(
        delivery: DeliveryStatus, preference: RefundPreference?, type: String, configured: Int32?, share: Int32?
    ) {
        var config = ConsumptionConfig()
        config.customerConsented = true
        config.deliveryStatus = delivery
        config.refundPreference = preference
        config.oneTimeConsumptionPercentage = configured
        let transaction = JWSTransactionDecodedPayload(
            purchaseDate: 1_000_000, expiresDate: 5_000_000, type: ProductType.resolve(type))
        guard case .send(let request) = ConsumptionDecision.decide(transaction: transaction, config: config) else {
            Issue.record("not sent")
            return
        }
        #expect(request.consumptionPercentage == share)
        #expect(request.deliveryStatus == delivery)
    }

    /// Without the transaction (so its type), nothing is sent that Apple might refuse for the type.
    @Test func anUnknownTransactionIsNotAnswered() {
        var config = ConsumptionConfig()
        config.customerConsented = true
        config.oneTimeConsumptionPercentage = 50_000
        for transaction in [nil, JWSTransactionDecodedPayload(type: .unknown("Gift"))] {
            guard case .skip(let reason) = ConsumptionDecision.decide(transaction: transaction, config: config) else {
                Issue.record("sent for \(String(describing: transaction?.type))")
                continue
            }
            #expect(reason.contains("not stored"))
        }
    }

    /// GRANT_PRORATED for a one-time purchase without a share above 0 is refused by Apple, so it
    /// is not sent, and the reason says which settings to change.
    @Test(arguments: [(DeliveryStatus.delivered, Int32?.none), (.delivered, 0), (.undeliveredServerOutage, 50_000)])
    func aProratedOneTimeAnswerNeedsAShare(delivery: DeliveryStatus, configured: Int32?) {
        var config = ConsumptionConfig()
        config.customerConsented = true
        config.deliveryStatus = delivery
        config.refundPreference = .grantProrated
        config.oneTimeConsumptionPercentage = configured
        let outcome = ConsumptionDecision.decide(
            transaction: JWSTransactionDecodedPayload(type: .consumable), config: config)
        guard case .skip(let reason) = outcome else {
            Issue.record("sent: \(outcome)")
            return
        }
        #expect(reason.contains("oneTimeConsumptionPercentage"))
    }

    /// A 429 whose Retry-After is later than the back-off is waited for; one past the 12 hours ends it.
    @Test func aRetryAfterIsWaitedFor() {
        let requested: Int64 = 1_000_000_000
        let hour: Int64 = 3_600_000
        #expect(
            ConsumptionDecision.nextAttempt(after: 1, nowMs: requested, requestedAtMs: requested, notBeforeMs: requested + hour)
                == requested + hour)
        #expect(
            ConsumptionDecision.nextAttempt(after: 1, nowMs: requested, requestedAtMs: requested, notBeforeMs: requested + 1000)
                == requested + 300_000)
        #expect(
            ConsumptionDecision.nextAttempt(
                after: 1, nowMs: requested, requestedAtMs: requested, notBeforeMs: requested + 13 * hour) == nil)
    }

    @Test func retriesBackOffWithinApplesTwelveHours() {
        let requested: Int64 = 1_000_000_000
        #expect(ConsumptionDecision.nextAttempt(after: 1, nowMs: requested, requestedAtMs: requested) == requested + 300_000)
        #expect(ConsumptionDecision.nextAttempt(after: 3, nowMs: requested, requestedAtMs: requested) == requested + 1_200_000)
        #expect(ConsumptionDecision.nextAttempt(after: 9, nowMs: requested, requestedAtMs: requested) == requested + 3_600_000)
        #expect(
            ConsumptionDecision.nextAttempt(after: 2, nowMs: requested + 11 * 3_600_000 + 3_400_000, requestedAtMs: requested)
                == nil)
    }
}
