import Foundation
import LoopbackClient
import Synchronization
import Testing

@testable import Server
@testable import Storage

/// Background loops whose storage fails say so: each failed pass is counted, and the log has
/// one line when failures start and one when they stop.
@Suite struct BackgroundFailureTests {
    @Test func aStreakIsSaidOnceWhenItStartsAndOnceWhenItEnds() {
        let lines = Mutex<[String]>([])
        let clock = Date(timeIntervalSince1970: 1_800_000_000)
        let metrics = Metrics()
        let streak = FailureStreak(
            task: "timers", fields: [("app", .text("demo"))],
            log: Log(clock: { clock }, sink: { line in lines.withLock { $0.append(line) } }), metrics: metrics)
        streak.succeeded()
        streak.failed(StoreError(.io, "disk I/O error"))
        streak.failed(StoreError(.io, "disk I/O error"))
        streak.succeeded()
        streak.succeeded()
        streak.failed(StoreError(.busy, "locked"))
        #expect(
            lines.withLock { $0 } == [
                "2027-01-15T08:00:00.000Z warning background.failing tried again at each pass task=timers app=demo "
                    + "error=\"storage io: disk I/O error\"\n",
                "2027-01-15T08:00:00.000Z info background.recovered works again task=timers app=demo\n",
                "2027-01-15T08:00:00.000Z warning background.failing tried again at each pass task=timers app=demo "
                    + "error=\"storage busy: locked\"\n",
            ])
        #expect(metrics.render().contains("revenuedot_background_failures_total{task=\"timers\"} 3\n"))
        #expect(metrics.render().contains("revenuedot_background_failures_total{task=\"contacts\"} 0\n"))
    }

    /// The scheduler and a webhook worker that cannot read their tables keep trying, and say so.
    @Test func theSchedulerAndAWebhookWorkerSayTheirReadsFail() throws {
        let fixture = try ServerFixture(
            extraHTTP: #", "scheduler": {"intervalMs": 100}"#, demoOptions: #""webhook": {"url": "http://127.0.0.1:9/hooks"}"#)
        let lines = Mutex<[String]>([])
        let service = try RevenueDotService(
            config: try fixture.config(), deliveryPollInterval: 0.05, log: { line in lines.withLock { $0.append(line) } })
        try service.start()
        defer { service.shutdown() }
        #expect(service.waitForSchedulerStart())
        let raw = try SQLiteConnection(path: fixture.databasePath, role: .writer)
        try raw.execute(script: "ALTER TABLE timers RENAME TO timers_moved; ALTER TABLE deliveries RENAME TO deliveries_moved")
        let failing = { lines.withLock { $0 }.filter { $0.contains(" background.failing ") } }
        #expect(poll(seconds: 10) { failing().count == 2 && service.metrics.backgroundFailures.counts["timers"] ?? 0 >= 3 })
        #expect(failing().contains { $0.contains("task=timers") && $0.contains("no such table") }, "\(failing())")
        #expect(failing().contains { $0.contains("task=webhook_pick app=demo") }, "\(failing())")
        try raw.execute(script: "ALTER TABLE timers_moved RENAME TO timers; ALTER TABLE deliveries_moved RENAME TO deliveries")
        #expect(poll(seconds: 10) { lines.withLock { $0 }.filter { $0.contains(" background.recovered ") }.count == 2 })
        #expect(failing().count == 2)
    }
}
