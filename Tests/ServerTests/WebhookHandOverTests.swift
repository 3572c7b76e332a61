import Dispatch
import Foundation
import LoopbackClient
import Testing

@testable import Server

/// A reload replaces each webhook worker; the new one must not send what the old one still has
/// in flight, which storage shows as pending until its outcome is committed.
@Suite("Webhook worker hand-over")
struct WebhookHandOverTests {
    /// The old worker's send is held by the receiver while a new worker of the same webhook
    /// starts: the new one sends nothing until the old one has its answer and has committed it,
    /// then takes the customer's next event. Each event goes once.
    @Test func aNewWorkerWaitsForTheOneItReplaces() throws {
        let release = DispatchSemaphore(value: 0)
        let receiver = try WebhookReceiver { index, _ in
            if index == 0 { _ = release.wait(timeout: .now() + 10) }
            return 200
        }
        defer { receiver.stop() }
        let fixture = try WebhookDeliveryTests.fixture(url: receiver.url)
        let service = try fixture.startService()
        defer { service.shutdown() }
        let story = Story(signer: fixture.signer)
        let now = Story.nowMs
        let period = story.period(1, from: now, until: now + 30 * 86_400_000)
        let connection = try LoopbackConnection(port: service.port)
        #expect(
            try connection.postNotification(try story.notification("SUBSCRIBED", "INITIAL_BUY", period: period)).status == 200)
        _ = receiver.wait { $0.count >= 1 }

        // What a reload does: the old worker stops with its send in hand and a new one starts.
        let replaced = try #require(service.generation.workers.first)
        replaced.beginStop()
        let app = try #require(service.generation.config.apps.first)
        let successor = DeliveryWorker(
            app: app, webhook: try #require(app.webhooks.first), store: service.shared.store, metrics: service.metrics,
            pollInterval: 0.05, node: service.shared.node)
        successor.start(after: replaced)
        defer {
            successor.beginStop()
            _ = successor.waitStopped(until: .now() + 10)
        }
        Thread.sleep(forTimeInterval: 0.5)
        #expect(receiver.received.count == 1, "the event in flight was not sent again")

        release.signal()
        #expect(replaced.waitStopped(until: .now() + 10))
        let cancelled = try story.notification(
            "DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", period: period, autoRenewStatus: 0)
        #expect(try connection.postNotification(cancelled).status == 200)
        _ = receiver.wait { $0.count >= 2 }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(receiver.received.map(\.type) == ["INITIAL_PURCHASE", "CANCELLATION"])
    }
}
