import Foundation
import Testing

@testable import Server
@_spi(StoreSQL) @testable import Storage
@testable import Tools

/// Moving from another server (RevenueCat, say): what Apple delivered to it, and what happened
/// before the import, is the past. It builds state; its events are recorded, never sent.
@Suite("Migration: the past is not sent")
struct MigrationPastTests {
    /// A webhook nobody listens at: its pending deliveries show what would go out.
    static let webhook = #""webhook": {"url": "http://127.0.0.1:9/hooks"}"#

    /// A subscription that lapsed two days ago, whose notifications Apple delivered to the
    /// server before RevenueDot, and one notification nobody took (a failed delivery).
    static func history(_ world: AppleAPIWorld) throws -> (delivered: Int, failed: Int) {
        let lapsed = try world.subscription(original: "5000000001", user: "alice", renewals: 2, boughtDaysAgo: 5)
        for signed in lapsed { try world.store.addNotification(signed, bundleId: "com.example.app", delivered: true) }
        let missed = try world.subscription(original: "5000000002", user: "bob", renewals: 0, boughtDaysAgo: 0)
        for signed in missed { try world.store.addNotification(signed, bundleId: "com.example.app", delivered: false) }
        return (lapsed.count, missed.count)
    }

    func count(_ world: AppleAPIWorld, _ sql: String) throws -> Int64 { try ImportTests().count(world, sql) }

    /// The README's migration: import, then serve, whose first backfill asks Apple for its
    /// failed deliveries only, and whose scheduler finds the imported lapse made already.
    @Test func importThenServeSendsNothingOfThePast() throws {
        let world = try AppleAPIWorld(backfillIntervalMinutes: 60, demoOptions: Self.webhook)
        let (_, failed) = try Self.history(world)
        var quiet = try world.config()
        quiet.appleAPI.backfillIntervalMinutes = 0
        try RevenueDotService(config: quiet, log: { _ in }).shutdown()
        let csv = try world.directory.write("export.csv", "original_transaction_id,app_user_id\n5000000001,alice\n")
        let imported = try runCLI(["import", "--config", world.configPath, "--app", "demo", csv])
        #expect(imported.output.contains("1 imported"), "\(imported.output)")

        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        try service.start()
        #expect(service.waitForSchedulerStart())
        try service.fireDueTimers()
        service.shutdown()
        // The lapse is recorded, with the import's other events, and none of them is to be sent.
        #expect(try count(world, "SELECT count(*) FROM events WHERE type = 'EXPIRATION'") == 1)
        let sent = "SELECT count(*) FROM deliveries d JOIN events e ON e.id = d.event_id WHERE e.customer = 'alice'"
        #expect(try count(world, sent) == 0)
        // Only the notification nobody took is recovered, and its events go out.
        #expect(try count(world, "SELECT count(*) FROM notifications") == Int64(failed))
        #expect(try count(world, "SELECT count(*) FROM deliveries") > 0)
        let reader = try StoreReader(path: world.databasePath)
        defer { reader.close() }
        #expect(try reader.backfillMark(appId: "demo", environment: "Sandbox") != nil)
    }

    /// `revenuedot backfill` on a database nothing was stored in says what it reads; once its
    /// run completed, the next starts from the mark, and `--since` reads everything.
    @Test func theCommandsFirstRunReadsTheFailedDeliveries() throws {
        let world = try AppleAPIWorld()
        let (delivered, failed) = try Self.history(world)
        try RevenueDotService(config: try world.config(), log: { _ in }).shutdown()
        let first = try runCLI(["backfill", "--config", world.configPath, "--app", "demo"])
        #expect(first.status == 0, "\(first.output)")
        #expect(first.output.contains("only Apple's failed deliveries"), "\(first.output)")
        #expect(try count(world, "SELECT count(*) FROM notifications") == Int64(failed))
        let asked = world.store.requestCount("notification-history")
        #expect(try BackfillCommand(arguments: ["--config", world.configPath, "--app", "demo"]).run() == 0)
        #expect(world.store.requestCount("notification-history") == asked + 1)
        let all = try runCLI(["backfill", "--config", world.configPath, "--app", "demo", "--since", "2020-01-01"])
        #expect(all.status == 0, "\(all.output)")
        #expect(try count(world, "SELECT count(*) FROM notifications") == Int64(delivered + failed))
    }
}
