import Foundation
import JSON
import LoopbackClient
import Testing

@testable import Server
@_spi(StoreSQL) @testable import Storage
@testable import Tools

/// The database commands on PostgreSQL, run as the built executable with the configuration a
/// node serves: the ones that read or apply inputs work beside a running node; `replay` waits
/// for every node to stop, and a node cannot start while it runs.
@Suite(.enabled(if: TestCluster.url != nil))
struct PostgresCommandsTests {
    /// `url` with its password, as a configuration's `database` holds it.
    static func withPassword(_ url: PostgresURL) -> String {
        "postgres://\(url.user):\(url.password ?? "")@\(url.host):\(url.port)/\(url.database)"
    }

    func count(_ url: PostgresURL, _ sql: String) throws -> Int64 {
        let reader = try StoreReader(postgres: url)
        defer { reader.close() }
        return try reader.read { (rows) throws(StoreError) in try rows.query(sql).first?.first?.integerValue ?? -1 }
    }

    @Test func readingAndApplyingCommandsWorkBesideARunningNode() throws {
        try PostgresServeTests.withDatabase { url in
            let world = try AppleAPIWorld(database: Self.withPassword(url))
            // Apple's history holds four notifications; the node was sent the first two.
            let notifications = try world.subscription(
                original: "1000000001", user: BackfillTests.user, renewals: 3, boughtDaysAgo: 3)
            var config = try world.config()
            config.scheduler.intervalMs = 3_600_000
            let service = try RevenueDotService(config: config, log: { _ in })
            try service.start()
            #expect(service.waitForSchedulerStart())
            defer { service.shutdown() }
            let connection = try LoopbackConnection(port: service.port)
            for signed in notifications.prefix(2) { #expect(try connection.postNotification(signed).status == 200) }
            for (index, signed) in notifications.enumerated() {
                try world.store.addNotification(signed, bundleId: "com.example.app", delivered: index < 2)
            }

            let backfill = try runCLI(["backfill", "--config", world.configPath, "--app", "demo"])
            #expect(backfill.status == 0, "\(backfill.output)")
            #expect(try count(url, "SELECT count(*) FROM notifications") == 4)
            #expect(try count(url, "SELECT count(*) FROM events WHERE type = 'RENEWAL'") == 3)

            let listed = try runCLI(["notifications", "list", "--json", "--config", world.configPath])
            #expect(listed.status == 0, "\(listed.output)")
            #expect(listed.output.split(separator: "\n").count == 4)
            #expect(!listed.output.contains(url.password ?? "-"))
            let events = try runCLI(["events", "list", "--config", world.configPath])
            #expect(events.status == 0, "\(events.output)")
            #expect(events.output.contains("INITIAL_PURCHASE"))
            let paged = try runCLI(["events", "list", "--customer", "nobody", "--offset", "1", "--config", world.configPath])
            #expect(paged.status == 0 && paged.output.contains("(no events)"), "\(paged.output)")

            let csv = try world.directory.write("subscribers.csv", try ImportTests.subscriptions(world, count: 5))
            let imported = try runCLI(["import", "--config", world.configPath, "--app", "demo", csv])
            #expect(imported.output.contains("5 imported"), "\(imported.output)")
            #expect(try count(url, "SELECT count(*) FROM purchases") == 6)

            let reconciled = try runCLI(["reconcile", "--config", world.configPath, "--app", "demo"])
            #expect(reconciled.status == 0, "\(reconciled.output)")
            #expect(reconciled.output.contains("0 drifted"), "\(reconciled.output)")

            // The node still serves what the commands stored.
            let body = try JSONValue(
                parsing: try connection.request(
                    "GET", "/v1/subscribers/\(BackfillTests.user)", headers: ["Authorization": "Bearer sk_test_secret"]
                ).body)
            #expect(body["subscriber"]?["entitlements"]?["pro"] != nil, "\(body)")
        }
    }

    @Test func replayHasTheDatabaseAloneAndGivesTheSameRows() throws {
        try PostgresServeTests.withDatabase { url in
            let fixture = try ServerFixture(database: "\"\(Self.withPassword(url))\"")
            let service = try fixture.startService()
            let connection = try LoopbackConnection(port: service.port)
            try ReplayTests.post(ReplayTests.lifecycle, about: "7000000001", signer: fixture.signer, over: connection)
            for _ in 0..<3 { #expect(try connection.postNotification(try fixture.signer.notification()).status == 200) }

            let refused = try runCLI(["replay", "--config", fixture.configPath])
            #expect(refused.status != 0)
            #expect(
                refused.output.contains("in use by a running server or command: stop every node first"), "\(refused.output)")
            service.shutdown()

            let live = try Self.snapshot(url)
            // A node started while a replay holds the database is refused, in one line.
            let replaying = try Store(postgres: url, exclusive: true)
            let blocked = #expect(throws: StoreError.self) { try Store(postgres: url) }
            #expect(
                blocked?.message.contains("is being replayed or migrated into by another process") == true,
                "\(String(describing: blocked))")
            replaying.close()

            let replayed = try runCLI(["replay", "--config", fixture.configPath])
            #expect(replayed.status == 0, "\(replayed.output)")
            #expect(replayed.output.contains("applied 8 input(s) again"), "\(replayed.output)")
            #expect(try Self.snapshot(url) == live)
        }
    }

    @Test func aCommandOnADatabaseServeNeverMadeSaysSoAndCreatesNothing() throws {
        try PostgresServeTests.withDatabase { url in
            let fixture = try ServerFixture(demoOptions: try ReplayTests.withKey(), database: "\"\(Self.withPassword(url))\"")
            let csv = try TestDirectory("postgres-csv").write("subscribers.csv", "original_transaction_id\n1000000001\n")
            for command in [["notifications", "list"], ["events", "list"], ["replay"]] + ReplayTests.applyingCommands(csv: csv) {
                let (status, output) = try runCLI(command + ["--config", fixture.configPath])
                #expect(status != 0)
                #expect(output.contains("no RevenueDot schema"), "\(command): \(output)")
                #expect(!output.contains(url.password ?? "-"))
            }
            let reader = try PostgresConnection(url: url)
            #expect(try reader.query("SELECT to_regclass('schema_migrations') IS NULL").first?.first == .integer(1))
        }
    }

    /// Every derived table, each row as text, in a stable order.
    static func snapshot(_ url: PostgresURL) throws -> [String: [String]] {
        let reader = try StoreReader(postgres: url)
        defer { reader.close() }
        return try reader.read { (rows) throws(StoreError) -> [String: [String]] in
            var tables: [String: [String]] = [:]
            for table in Replay.derivedTables {
                tables[table] = try rows.query("SELECT * FROM \(table) ORDER BY 1, 2").map { "\($0)" }
            }
            return tables
        }
    }
}
