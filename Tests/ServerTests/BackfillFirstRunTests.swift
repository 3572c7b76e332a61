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

    /// A stop while the first backfill retries against an Apple that answers 503 does not wait
    /// out the retries (seconds apart, and the first backfill is tried again for two minutes):
    /// the wait before the next attempt ends at once, and no attempt follows.
    @Test func aStopDoesNotWaitOutRetriesAgainstApple() throws {
        let world = try AppleAPIWorld()
        world.store.inject(.status(503, code: nil, retryAfter: nil), count: 1000, endpoint: "notification-history")
        var config = try world.config()
        config.appleAPI.backfillIntervalMinutes = 60
        let service = try RevenueDotService(config: config, log: { _ in })
        try service.start()
        let deadline = Date().addingTimeInterval(10)
        while world.store.requestCount("notification-history") < 2, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(world.store.requestCount("notification-history") >= 2, "the backfill did not retry")
        let started = Date()
        #expect(service.shutdown())
        #expect(Date().timeIntervalSince(started) < 2, "the stop took \(Date().timeIntervalSince(started)) s")
        let asked = world.store.requestCount("notification-history")
        Thread.sleep(forTimeInterval: 0.3)
        #expect(world.store.requestCount("notification-history") == asked, "an attempt after the stop")
    }
}
