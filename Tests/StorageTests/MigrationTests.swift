import Foundation
import Testing

@testable import Storage

@Suite struct MigrationTests {
    /// A database migrated up to (not including) `version`, holding the rows `script` inserts;
    /// keep the directory as long as the connection.
    static func database(before version: Int, holding script: String) throws -> (TemporaryDirectory, SQLiteConnection) {
        let directory = try TemporaryDirectory()
        let connection = try SQLiteConnection(path: directory.databasePath, role: .writer)
        try Migrator(connection: connection, migrations: Migration.all.filter { $0.version < version }).migrate()
        try connection.execute(script: script)
        return (directory, connection)
    }

    @Test func migrationsAreAppliedOnceAndReopeningChangesNothing() throws {
        let directory = try TemporaryDirectory()
        try Store(path: directory.databasePath).close()
        let first = try rawQuery(directory.databasePath, "SELECT version, applied_at FROM schema_migrations")
        try Store(path: directory.databasePath).close()
        let second = try rawQuery(directory.databasePath, "SELECT version, applied_at FROM schema_migrations")

        #expect(first.map { $0[0] } == Migration.all.map { .integer($0.version) })
        #expect(second == first)
        let tables = try rawQuery(
            directory.databasePath, "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
        #expect(
            tables.compactMap { $0[0].textValue } == [
                "apple_answers", "applied_inputs", "backfill_marks", "commerce_requests", "consumption_answers",
                "customer_actions",
                "customer_aliases", "customer_contacts", "customers", "database_settings", "deliveries",
                "event_position_floor", "events", "held_events",
                "notifications", "payload_dictionaries",
                "posted_transactions", "purchase_facts", "purchase_views", "purchases",
                "reject_counts", "rejects", "schema_migrations", "timers", "unattached_facts",
            ])
        // Each index on a table a notification writes costs WAL pages: only those a query needs.
        let notificationIndexes = try rawQuery(
            directory.databasePath,
            "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'notifications' ORDER BY name")
        #expect(
            notificationIndexes.compactMap { $0[0].textValue } == [
                "notifications_by_app", "notifications_consumption_requests", "notifications_not_applied",
                "sqlite_autoindex_notifications_1",
            ])
    }

    /// A database written before version 23 keeps its deliveries, all for the first webhook.
    @Test func deliveriesSurviveTheMoveToOnePerWebhook() throws {
        let (directory, connection) = try Self.database(
            before: 23,
            holding: """
                INSERT INTO deliveries (event_id, app_id, customer, position, status, attempts, next_attempt_at, created_at, last_error)
                VALUES ('e1', 'demo', 'ann', 1, 'pending', 2, 50, 10, 'timed out'),
                       ('e2', 'demo', NULL, 2, 'delivered', 1, 20, 11, NULL);
                """)
        defer { withExtendedLifetime(directory) {} }
        try Migrator(connection: connection).migrate()
        let rows = try connection.query(
            "SELECT event_id, webhook, customer, status, attempts, last_error FROM deliveries ORDER BY position")
        #expect(
            rows == [
                [.text("e1"), .text(""), .text("ann"), .text("pending"), .integer(2), .text("timed out")],
                [.text("e2"), .text(""), .null, .text("delivered"), .integer(1), .null],
            ])
        // A second webhook's delivery of the same event is a row of its own.
        try connection.execute(
            script: """
                INSERT INTO deliveries (event_id, webhook, app_id, position, status, next_attempt_at, created_at)
                VALUES ('e1', 'audit', 'demo', 1, 'pending', 0, 0);
                """)
        #expect(try connection.query("SELECT count(*) FROM deliveries WHERE event_id = 'e1'") == [[.integer(2)]])
    }

    /// A database written before version 11 keeps its timers when they move to a table without rowid.
    @Test func timersSurviveTheMoveToATableWithoutRowid() throws {
        let (directory, connection) = try Self.database(
            before: 11,
            holding: """
                INSERT INTO timers (app_id, id, fire_at, json) VALUES ('demo', 'expiration/1', 20, '{"a":1}');
                INSERT INTO timers (app_id, id, fire_at, json) VALUES ('demo', 'expiration/2', 10, '{"b":2}');
                INSERT INTO timers (app_id, id, fire_at, json) VALUES ('other', 'expiration/1', 30, '{"c":3}');
                """)
        defer { withExtendedLifetime(directory) {} }
        try Migrator(connection: connection).migrate()

        let rows = try connection.query("SELECT app_id, id, fire_at, json FROM timers ORDER BY fire_at")
        #expect(
            rows == [
                [.text("demo"), .text("expiration/2"), .integer(10), .text(#"{"b":2}"#)],
                [.text("demo"), .text("expiration/1"), .integer(20), .text(#"{"a":1}"#)],
                [.text("other"), .text("expiration/1"), .integer(30), .text(#"{"c":3}"#)],
            ])
        let schema = try connection.query("SELECT sql FROM sqlite_schema WHERE name = 'timers'").first?.first?.textValue
        #expect(schema?.contains("WITHOUT ROWID") == true)
        #expect(
            try connection.query("SELECT name FROM sqlite_schema WHERE tbl_name = 'timers' AND type = 'index' ORDER BY name")
                == [[.text("timers_by_fire_at")]])
        // The key still holds.
        #expect(throws: StoreError.self) {
            try connection.run("INSERT INTO timers (app_id, id, fire_at, json) VALUES ('demo', 'expiration/1', 1, '{}')")
        }
    }

    /// Migration 13 moves each subscription's timer into its purchase row; a timer whose
    /// subscription has no row (in this app) stays in `timers`.
    @Test func timersMoveIntoTheirPurchaseRows() throws {
        let (directory, connection) = try Self.database(
            before: 13,
            holding: """
                INSERT INTO purchases (app_id, purchase_key, json) VALUES ('demo', 's:1', '{}');
                INSERT INTO purchases (app_id, purchase_key, json) VALUES ('demo', 's:2', '{}');
                INSERT INTO purchases (app_id, purchase_key, json) VALUES ('demo', 'o:1', '{}');
                INSERT INTO timers (app_id, id, fire_at, json) VALUES ('demo', 'expiration/1', 20, '{}');
                INSERT INTO timers (app_id, id, fire_at, json) VALUES ('other', 'expiration/2', 10, '{}');
                INSERT INTO timers (app_id, id, fire_at, json) VALUES ('demo', 'expiration/9', 30, '{}');
                """)
        defer { withExtendedLifetime(directory) {} }
        try Migrator(connection: connection).migrate()

        #expect(
            try connection.query("SELECT purchase_key, timer_fire_at FROM purchases ORDER BY purchase_key")
                == [[.text("o:1"), .null], [.text("s:1"), .integer(20)], [.text("s:2"), .null]])
        #expect(
            try connection.query("SELECT app_id, id, fire_at FROM timers ORDER BY fire_at")
                == [
                    [.text("other"), .text("expiration/2"), .integer(10)], [.text("demo"), .text("expiration/9"), .integer(30)],
                ])
        #expect(
            try connection.query("SELECT sql FROM sqlite_schema WHERE name = 'purchases_by_timer'").first?.first?.textValue?
                .contains("WHERE timer_fire_at IS NOT NULL") == true)
    }

    /// Migration 13 finds each timer's purchase by its key: on 20,000 subscriptions a statement
    /// that scanned the purchases once per timer took over a minute (and would take days on a
    /// million); by key it takes a fraction of a second. The bound only catches the scan.
    @Test func timersMoveByKeyNotByScanning() throws {
        let (directory, connection) = try Self.database(
            before: 13,
            holding: """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
                INSERT INTO purchases (app_id, purchase_key, json) SELECT 'demo', 's:' || i, '{}' FROM n;
                INSERT INTO timers (app_id, id, fire_at, json)
                SELECT app_id, 'expiration/' || substr(purchase_key, 3), 7, '{}' FROM purchases;
                """)
        defer { withExtendedLifetime(directory) {} }
        let started = Date()
        try Migrator(connection: connection).migrate()
        #expect(Date().timeIntervalSince(started) < 20)
        #expect(try connection.query("SELECT count(*) FROM purchases WHERE timer_fire_at = 7") == [[.integer(20000)]])
        #expect(try connection.query("SELECT count(*) FROM timers") == [[.integer(0)]])
    }

    @Test func databaseFromANewerBuildIsRefused() throws {
        let directory = try TemporaryDirectory()
        try Store(path: directory.databasePath).close()
        try rawExecute(
            directory.databasePath, "INSERT INTO schema_migrations (version, applied_at) VALUES (999, 'future')")

        let error = #expect(throws: StoreError.self) { try Store(path: directory.databasePath) }
        #expect(error?.code == .invalid)
        #expect(error?.message.contains("schema version 999") == true)
        // With the way back (README "Upgrading"): the newer build, or the backup from before it.
        #expect(error?.message.contains("restore the backup taken before the upgrade") == true, "\(error?.message ?? "")")
    }

    /// Refused before anything is written: a file from a newer build (here one out of WAL mode,
    /// as a backup is) keeps every byte, and gets no WAL beside it.
    @Test func aDatabaseFromANewerBuildIsLeftAsItWas() throws {
        let directory = try TemporaryDirectory()
        try Store(path: directory.databasePath).close()
        let copy = try SQLiteConnection(path: directory.databasePath, role: .copy)
        try copy.execute(
            script: "PRAGMA journal_mode = DELETE; INSERT INTO schema_migrations (version, applied_at) VALUES (999, 'future')")
        let before = try Data(contentsOf: URL(fileURLWithPath: directory.databasePath))
        #expect(throws: StoreError.self) { try Store(path: directory.databasePath) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.databasePath)) == before)
        #expect(!FileManager.default.fileExists(atPath: directory.databasePath + "-wal"))
    }

    @Test func fileThatIsNotADatabaseIsReportedCorrupt() throws {
        let directory = try TemporaryDirectory()
        try String(repeating: "not a database ", count: 100).write(
            toFile: directory.databasePath, atomically: true, encoding: .utf8)

        let error = #expect(throws: StoreError.self) { try Store(path: directory.databasePath) }
        #expect(error?.code == .corrupt)
        // Said of the file, not of the PRAGMA that first read its header.
        #expect(error?.message == "\(directory.databasePath) is not a SQLite database", "\(error?.message ?? "")")
    }
}
