import Dispatch
import Foundation
import LoopbackClient
import Testing

@testable import Server

/// A reload replaces each webhook worker; the new one must not send what the old one still has
/// in flight, which storage shows as pending until its outcome is committed.
@Suite("Webhook worker hand-over")
struct WebhookHandOverTests {
    /// The old worker's send is held by the receiver while new workers of the same webhook
    /// start, one after another: none sends anything until the old one has its answer and has
    /// committed it; the last then takes the customer's next event. Each event goes once.
    @Test func aNewWorkerWaitsForTheOneItReplaces() throws {
        let held = try FirstSendHeld()
        defer { held.stop() }
        let (receiver, release, service) = (held.receiver, held.release, held.service)
        let (story, period, connection) = (held.story, held.period, held.connection)

        // What a reload does: the old worker stops with its send in hand and a new one starts;
        // a second reload soon after replaces that one too, while the first send still waits.
        let replaced = try #require(service.generation.workers.first)
        replaced.beginStop()
        let app = try #require(service.generation.config.apps.first)
        let webhook = try #require(app.webhooks.first)
        let worker = {
            DeliveryWorker(
                app: app, webhook: webhook, store: service.shared.store, metrics: service.metrics, pollInterval: 0.05,
                node: service.shared.node)
        }
        let second = worker()
        second.start(after: replaced)
        Thread.sleep(forTimeInterval: 0.3)
        second.beginStop()
        #expect(!second.waitStopped(until: .now() + 0.1), "not stopped while the one it replaced is not")
        let third = worker()
        third.start(after: second)
        defer {
            third.beginStop()
            _ = third.waitStopped(until: .now() + 10)
        }
        Thread.sleep(forTimeInterval: 0.5)
        #expect(receiver.received.count == 1, "the event in flight was not sent again")

        release.signal()
        #expect(second.waitStopped(until: .now() + 10))
        let cancelled = try story.notification(
            "DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", period: period, autoRenewStatus: 0)
        #expect(try connection.postNotification(cancelled).status == 200)
        _ = receiver.wait { $0.count >= 2 }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(receiver.received.map(\.type) == ["INITIAL_PURCHASE", "CANCELLATION"])
    }

    /// A webhook removed by one reload and given back by the next, while its old worker still
    /// holds a send the first reload gave up waiting for: the new worker waits for that one (the
    /// last started for the webhook, not one of the generation just before), so the event in
    /// flight is not sent again meanwhile.
    @Test func aWebhookGivenBackWaitsForItsLastWorker() throws {
        let held = try FirstSendHeld()
        defer { held.stop() }
        let (receiver, release, service) = (held.receiver, held.release, held.service)
        service.reloadStopTimeout.withLock { $0 = .milliseconds(200) }
        let first = try #require(service.generation.workers.first)

        let original = service.current
        var without = original
        without.apps = without.apps.map { app in
            var app = app
            app.webhooks = []
            return app
        }
        #expect(service.reload(to: without) == .reloaded(restartNeeded: []))
        #expect(service.generation.workers.isEmpty)
        #expect(service.reload(to: original) == .reloaded(restartNeeded: []))
        let given = try #require(service.generation.workers.first)
        #expect(given !== first)
        Thread.sleep(forTimeInterval: 0.6)
        #expect(receiver.received.count == 1, "the event in flight was not sent again")

        release.signal()
        #expect(first.waitStopped(until: .now() + 10))
        Thread.sleep(forTimeInterval: 0.5)
        #expect(receiver.received.count == 1)
        // And the webhook given back works: it takes the customer's next event.
        let cancelled = try held.story.notification(
            "DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", period: held.period, autoRenewStatus: 0)
        #expect(try held.connection.postNotification(cancelled).status == 200)
        _ = receiver.wait { $0.count >= 2 }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(receiver.received.map(\.type) == ["INITIAL_PURCHASE", "CANCELLATION"])
    }
}

/// A service with a webhook whose receiver holds its first send until `release` (or 10 s): a
/// purchase is posted and its INITIAL_PURCHASE is in flight when `init` returns.
final class FirstSendHeld {
    let release = DispatchSemaphore(value: 0)
    let receiver: WebhookReceiver
    let fixture: ServerFixture
    let service: RevenueDotService
    let story: Story
    let period: Story.Period
    let connection: LoopbackConnection

    init() throws {
        let release = release
        receiver = try WebhookReceiver { index, _ in
            if index == 0 { _ = release.wait(timeout: .now() + 10) }
            return 200
        }
        fixture = try WebhookDeliveryTests.fixture(url: receiver.url)
        service = try fixture.startService()
        story = Story(signer: fixture.signer)
        let now = Story.nowMs
        period = story.period(1, from: now, until: now + 30 * 86_400_000)
        connection = try LoopbackConnection(port: service.port)
        let purchase = try story.notification("SUBSCRIBED", "INITIAL_BUY", period: period)
        #expect(try connection.postNotification(purchase).status == 200)
        _ = receiver.wait { $0.count >= 1 }
    }

    func stop() {
        service.shutdown()
        receiver.stop()
    }
}
