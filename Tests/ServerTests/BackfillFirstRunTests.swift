import Foundation
import Testing

@testable import Server
@_spi(StoreSQL) @testable import Storage
@testable import Tools

/// The first backfill of a database that has notifications already (the key configured weeks
/// after the server started): an outage before the newest one stored is found through Apple's
/// failed deliveries, asked for as far back as Apple keeps.
@Suite("Backfill: the first run")
struct BackfillFirstRunTests {
    @Test(arguments: [false, true])
    func anOutageBeforeTheNewestStoredIsRecovered(automatic: Bool) throws {
        let world = try AppleAPIWorld()
        let tests = BackfillTests()
        _ = try tests.outage(world)
        try tests.pushAfterTheOutage(world)
        #expect(try tests.stored(world).notifications == 3)

        if automatic {
            var config = try world.config()
            config.appleAPI.backfillIntervalMinutes = 60
            let service = try RevenueDotService(config: config, log: { _ in })
            try service.start()
            #expect(service.waitForSchedulerStart())
            service.shutdown()
        } else {
            let run = try runCLI(["backfill", "--config", world.configPath, "--app", "demo"])
            #expect(run.status == 0, "\(run.output)")
            #expect(run.output.contains("only Apple's failed deliveries, as far back as it keeps them"), "\(run.output)")
        }
        #expect(try tests.stored(world).notifications == 5)
        // The outage's two renewals (the timers of the server that took the push had expired
        // the period they follow meanwhile).
        let events = try tests.stored(world).events
        #expect(events.filter { $0.hasPrefix("RENEWAL") }.count == 3, "\(events)")
        // Once a run completed, the mark is where the next starts: no failures pass again.
        let before = world.store.requestCount("notification-history")
        #expect(try BackfillCommand(arguments: ["--config", world.configPath, "--app", "demo"]).run() == 0)
        #expect(world.store.requestCount("notification-history") == before + 1)
    }

    /// A stop, or a reload, while the first backfill waits to try Apple again (a 429 asking for
    /// 20 s) does not wait that out: the wait ends at once, and no attempt follows.
    @Test(arguments: [false, true])
    func aStopDoesNotWaitOutRetriesAgainstApple(reload: Bool) throws {
        let world = try AppleAPIWorld()
        world.store.inject(.status(429, code: 4_290_000, retryAfter: "20"), count: 1000, endpoint: "notification-history")
        var config = try world.config()
        config.appleAPI.backfillIntervalMinutes = 60
        let service = try RevenueDotService(config: config, log: { _ in })
        try service.start()
        defer { service.shutdown() }
        let deadline = Date().addingTimeInterval(10)
        while world.store.requestCount("notification-history") < 1, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(world.store.requestCount("notification-history") == 1, "the backfill did not ask Apple")
        Thread.sleep(forTimeInterval: 0.2)
        let started = Date()
        if reload {
            // The new generation's backfill starts afresh; the old one's wait is what is timed.
            #expect(service.reload(to: config) == .reloaded(restartNeeded: []))
        } else {
            #expect(service.shutdown())
        }
        #expect(Date().timeIntervalSince(started) < 10, "the stop took \(Date().timeIntervalSince(started)) s")
    }
}
