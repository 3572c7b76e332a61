import Foundation
import LoopbackClient
import Testing
import Threads

@testable import Server

/// A tick counts the timers it fired itself: ticks running at once (two nodes, or one asked for
/// beside the scheduler's thread) fire each timer once and count it once between them.
@Suite("Scheduler counts")
struct SchedulerCountTests {
    @Test func ticksAtOnceCountEachTimerOnce() throws {
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let fixture = try WebhookDeliveryTests.fixture(url: receiver.url)
        var config = try fixture.config()
        config.scheduler.intervalMs = 3_600_000
        let service = try RevenueDotService(config: config, log: { _ in })
        try service.start()
        defer { service.shutdown() }
        #expect(service.waitForSchedulerStart())
        let count = 12
        let now = Story.nowMs
        let connection = try LoopbackConnection(port: service.port)
        var ends: Int64 = 0
        for _ in 0..<count {
            let story = Story(signer: fixture.signer)
            let period = story.period(1, from: now, until: now + 500)
            ends = max(ends, period.expiresMs)
            for payload in [
                try story.notification("SUBSCRIBED", "INITIAL_BUY", period: period),
                try story.notification(
                    "DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", period: period, autoRenewStatus: 0),
            ] {
                #expect(try connection.postNotification(payload).status == 200)
            }
        }
        while Story.nowMs <= ends { Thread.sleep(forTimeInterval: 0.02) }

        let fired = Locked(0)
        let failures = Locked<[String]>([])
        runOnThreads(3) { _ in
            do {
                let firedHere = try service.fireDueTimers()
                fired.withLock { $0 += firedHere }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        #expect(failures.value.isEmpty, "\(failures.value)")
        #expect(fired.value == count)
        let received = receiver.wait { $0.count >= 3 * count }
        #expect(received.filter { $0.type == "EXPIRATION" }.count == count)
        let metrics = String(decoding: try connection.request("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains("revenuedot_timers_fired_total \(count)"))
    }
}
