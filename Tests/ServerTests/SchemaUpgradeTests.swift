import Foundation
import Testing

@testable import Server
@testable import Tools

/// A database made by an older build is brought forward by the next command that writes it, and
/// that command says so: the README asks for a backup before an upgrade.
@Suite struct SchemaUpgradeTests {
    /// A database made before the backfill marks (schema 25) is brought forward by the next
    /// command that writes, and that command says so: `replay` in its output, `serve` in its log.
    @Test func aMigrationAtOpenIsSaid() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        service.shutdown()
        func makeOlder() throws {
            let made = try DeploymentFilesTests.run(
                "/usr/bin/python3",
                [
                    "-c",
                    "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                        + "c.execute('DROP TABLE backfill_marks'); c.execute('DROP INDEX events_by_app'); "
                        + "c.execute('DROP TABLE event_position_floor'); c.execute('DROP TABLE database_settings'); "
                        + "c.execute('ALTER TABLE posted_transactions DROP COLUMN presented_offering_id'); "
                        + "c.execute('DROP INDEX deliveries_pending_by_customer'); "
                        + "c.execute('DELETE FROM schema_migrations WHERE version >= 26'); c.commit()",
                    fixture.databasePath,
                ])
            #expect(made.0 == 0, "\(made.1)")
        }
        try makeOlder()
        let replay = try runCLI(["replay", "--config", fixture.configPath])
        #expect(replay.status == 0, "\(replay.output)")
        #expect(
            replay.output.contains("revenuedot replay: migrated the database's schema 25 to 31 (6 migrations) first"),
            "\(replay.output)")

        try makeOlder()
        let server = try ChildServer(configPath: fixture.configPath)
        let log = server.output(containing: "storage.migrated")
        #expect(log.contains("info storage.migrated"), "\(log)")
        #expect(log.contains("from=25 to=31 migrations=6"), "\(log)")
        server.kill(SIGTERM)
        #expect(server.wait(timeout: 30) == 0)
        // Started again on the current schema, it has nothing to say.
        let again = try ChildServer(configPath: fixture.configPath)
        #expect(!again.output(containing: "listening on").contains("storage.migrated"))
        again.kill(SIGTERM)
        #expect(again.wait(timeout: 30) == 0)
    }
}
