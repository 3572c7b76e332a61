import AppStore
import Foundation
import LoopbackClient
import Testing

@testable import Server
@testable import Tools

/// A story through the real server, every webhook taken by a consumer as strict as RevenueCat's
/// documentation allows (`StrictRevenueCatConsumer`): each type has RevenueCat's keys, no more.
@Suite("RevenueCat's webhook shape")
struct RevenueCatWebhookShapeTests {
    @Test func everyEventOfAStoryFitsRevenueCatsKeysAndTypes() throws {
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let fixture = try WebhookDeliveryTests.fixture(url: receiver.url)
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let story = Story(signer: fixture.signer)
        func post(_ payload: String) throws {
            #expect(try connection.postNotification(payload).status == 200)
        }
        let now = Story.nowMs
        let first = story.period(1, from: now - 2000, until: now + 86_400_000)
        let second = story.period(2, "pro.yearly", from: now - 1000, until: now + 2 * 86_400_000)
        try post(try story.notification("SUBSCRIBED", "INITIAL_BUY", period: first))
        try post(try story.notification("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", period: first, autoRenewStatus: 0))
        try post(try story.notification("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED", period: first))
        try post(
            try story.notification(
                "DID_FAIL_TO_RENEW", "GRACE_PERIOD", period: first,
                renewal: [
                    "isInBillingRetryPeriod": .bool(true), "gracePeriodExpiresDate": .integer(now + 3 * 86_400_000),
                ]))
        try post(try story.notification("DID_CHANGE_RENEWAL_PREF", "UPGRADE", period: second))
        try post(try story.notification("REFUND", period: second, renewal: [:]))
        try post(try story.notification("REFUND_REVERSED", period: second, renewal: [:]))
        // Posted by another customer: a TRANSFER.
        #expect(
            try LinkingAPITests.link(
                connection, "first-owner", try LinkingAPITests.storeKitTransaction(fixture, original: story.originalTransactionId)
            )
                == 200)
        #expect(
            try LinkingAPITests.link(
                connection, "second-owner",
                try LinkingAPITests.storeKitTransaction(fixture, original: story.originalTransactionId))
                == 200)
        let types: Set<String> = [
            "INITIAL_PURCHASE", "CANCELLATION", "UNCANCELLATION", "BILLING_ISSUE", "PRODUCT_CHANGE", "RENEWAL", "TRANSFER",
            "REFUND_REVERSED",
        ]
        let received = receiver.wait { received in types.isSubset(of: Set(received.compactMap { $0.event["type"]?.stringValue }))
        }
        #expect(types.isSubset(of: Set(received.compactMap { $0.event["type"]?.stringValue })))
        for delivery in received {
            let problems = StrictRevenueCatConsumer.problems(delivery.event)
            #expect(problems.isEmpty, "\(problems)")
            // Key by key, what RevenueCat's samples give the type.
            let type = delivery.event["type"]?.stringValue ?? ""
            #expect(Set(delivery.event.objectValue?.keys ?? [:].keys) == StrictRevenueCatConsumer.keys(of: type), "\(type)")
        }
    }
}
