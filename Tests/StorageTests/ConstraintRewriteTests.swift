import Foundation
import Testing

@testable import Storage

@Suite struct ConstraintRewriteTests {
    /// The statements a stored notification and a webhook delivery run, as SQLite compiles them.
    static let writes = [
        "INSERT INTO notifications (notification_uuid, app_id, notification_type, received_at, state, signed_payload) VALUES ('u', 'a', 'TEST', 1, 'applied', 'x')",
        "INSERT INTO applied_inputs (app_id, kind, ref, at) VALUES ('a', 'notification', 'u', 1)",
        "UPDATE deliveries SET status = 'delivered' WHERE event_id = 'e'",
    ]
    /// `writes` on the current schema, where migration 24 replaced `signed_payload` with `payload`.
    static let writesNow = writes.map { $0.replacingOccurrences(of: "signed_payload) VALUES", with: "payload) VALUES") }

    /// The opcodes of `sql`'s program.
    static func opcodes(_ sql: String, on connection: SQLiteConnection) throws -> [String] {
        try connection.query("EXPLAIN " + sql).compactMap { $0[1].textValue }
    }

    /// A database written by the build before migration 15, with its rows, keeps them and
    /// accepts and refuses exactly the same values, and its writes no longer build a temporary
    /// B-tree for a constraint.
    @Test func constraintsChangeTextNotMeaning() throws {
        let (directory, connection) = try MigrationTests.database(
            before: 15,
            holding: """
                INSERT INTO notifications (notification_uuid, app_id, notification_type, received_at, state, signed_payload)
                    VALUES ('before', 'demo', 'TEST', 1, 'held', 'payload');
                INSERT INTO applied_inputs (app_id, kind, ref, at) VALUES ('demo', 'timer', 'expiration/1', 2);
                """)
        defer { withExtendedLifetime(directory) {} }
        for sql in Self.writes {
            #expect(try Self.opcodes(sql, on: connection).contains("OpenEphemeral"), "before: \(sql)")
        }
        let versionBefore = try connection.query("PRAGMA schema_version").first?.first?.integerValue

        // Migration 15 alone: the later ones change the schema (and its version) in their own ways.
        try Migrator(connection: connection, migrations: Migration.all.filter { $0.version <= 15 }).migrate()

        for sql in Self.writes {
            #expect(try !Self.opcodes(sql, on: connection).contains("OpenEphemeral"), "after: \(sql)")
        }
        #expect(try connection.query("PRAGMA schema_version").first?.first?.integerValue == versionBefore.map { $0 + 1 })
        #expect(try connection.query("PRAGMA integrity_check") == [[.text("ok")]])
        #expect(
            try connection.query("SELECT notification_uuid, state FROM notifications") == [[.text("before"), .text("held")]])
        #expect(try connection.query("SELECT kind, ref FROM applied_inputs") == [[.text("timer"), .text("expiration/1")]])
        // Every value the old constraints took is still taken; any other is still refused.
        for state in ["received", "applied", "held", "failed"] {
            try connection.run(
                "INSERT INTO notifications (notification_uuid, app_id, notification_type, received_at, state, signed_payload) VALUES (?, 'demo', 'TEST', 1, ?, 'p')",
                [.text(state), .text(state)])
        }
        for kind in ["notification", "posted_transaction", "timer"] {
            try connection.run(
                "INSERT INTO applied_inputs (app_id, kind, ref, at) VALUES ('demo', ?, 'r', 1)", [.text(kind)])
        }
        for status in ["pending", "delivered", "dead"] {
            try connection.run(
                "INSERT INTO deliveries (event_id, app_id, position, status, next_attempt_at, created_at) VALUES (?, 'demo', 1, ?, 1, 1)",
                [.text(status), .text(status)])
        }
        for (sql, value) in [
            (
                "INSERT INTO notifications (notification_uuid, app_id, notification_type, received_at, state, signed_payload) VALUES ('x', 'demo', 'TEST', 1, ?, 'p')",
                "done"
            ),
            ("INSERT INTO applied_inputs (app_id, kind, ref, at) VALUES ('demo', ?, 'r', 1)", "webhook"),
            (
                "INSERT INTO deliveries (event_id, app_id, position, status, next_attempt_at, created_at) VALUES ('x', 'demo', 1, ?, 1, 1)",
                "lost"
            ),
        ] {
            let error = #expect(throws: StoreError.self) { try connection.run(sql, [.text(value)]) }
            #expect(error?.message.contains("CHECK constraint failed") == true, "\(value): \(error?.message ?? "")")
        }
    }

    /// The new definitions are what a fresh database has, and other connections read them.
    @Test func freshDatabaseHasTheNewDefinitions() throws {
        let directory = try TemporaryDirectory()
        try Store(path: directory.databasePath).close()
        let definitions = try rawQuery(
            directory.databasePath,
            "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name IN ('notifications', 'applied_inputs', 'deliveries')"
        ).compactMap { $0[0].textValue }
        #expect(definitions.count == 3)
        // The latest text of each table's constraint: migrations 20 and 22 widened applied_inputs.kind.
        let latest = Dictionary(
            (Migration.v15.rewrites + Migration.v20.rewrites + Migration.v22.rewrites).map { ($0.table, $0) },
            uniquingKeysWith: { _, later in later })
        for rewrite in latest.values {
            #expect(definitions.contains { $0.contains(rewrite.to) }, "\(rewrite.table)")
            #expect(!definitions.contains { $0.contains(rewrite.from) }, "\(rewrite.table)")
        }
    }

    /// A connection in defensive mode (some SQLite builds' default) migrates too, and stays defensive.
    @Test func defensiveConnectionMigratesAndStaysDefensive() throws {
        let (directory, connection) = try MigrationTests.database(before: 15, holding: "")
        defer { withExtendedLifetime(directory) {} }
        connection.isDefensive = true
        #expect(connection.isDefensive)
        // Defensive mode refuses the edit this migration makes, unless the migration lifts it.
        try connection.execute(script: "PRAGMA writable_schema = ON;")
        #expect(throws: StoreError.self) {
            try connection.run("UPDATE sqlite_schema SET sql = sql WHERE name = 'notifications'")
        }
        try connection.execute(script: "PRAGMA writable_schema = OFF;")

        try Migrator(connection: connection).migrate()

        #expect(connection.isDefensive)
        for sql in Self.writesNow {
            #expect(try !Self.opcodes(sql, on: connection).contains("OpenEphemeral"), "after: \(sql)")
        }
    }

    /// A definition without the old text (a schema this build did not write) is left alone, and
    /// a rewrite that changes nothing leaves the schema version alone too.
    @Test func unknownDefinitionIsLeftAsItIs() throws {
        let directory = try TemporaryDirectory()
        let connection = try SQLiteConnection(path: directory.databasePath, role: .writer)
        try connection.execute(script: "CREATE TABLE notifications (state TEXT CHECK (state IN ('a', 'b', 'c')));")
        let before = try connection.query("SELECT sql, (SELECT schema_version FROM pragma_schema_version) FROM sqlite_schema")

        try connection.run("BEGIN IMMEDIATE")
        try ConstraintRewrite.apply(Migration.v15.rewrites, on: connection)
        try connection.run("COMMIT")

        #expect(
            try connection.query("SELECT sql, (SELECT schema_version FROM pragma_schema_version) FROM sqlite_schema") == before)
    }

    /// A rewrite whose new text does not parse fails the migration when the definitions are read
    /// back, and the rollback leaves the schema, its version and the migration record as they were.
    @Test func unreadableRewriteRollsBack() throws {
        let (directory, connection) = try MigrationTests.database(before: 15, holding: "")
        defer { withExtendedLifetime(directory) {} }
        let schema = "SELECT name, sql FROM sqlite_schema ORDER BY name"
        let (before, version) = (try connection.query(schema), try connection.query("PRAGMA schema_version"))
        var broken = Migration.v15
        broken.rewrites = [
            ConstraintRewrite(table: "notifications", from: Migration.v15.rewrites[0].from, to: "CHECK (state = 'received' OR )")
        ]

        let error = #expect(throws: StoreError.self) {
            try Migrator(connection: connection, migrations: Migration.all.filter { $0.version < 15 } + [broken]).migrate()
        }

        #expect(error?.message.contains("malformed database schema") == true, "\(error?.message ?? "")")
        #expect(!connection.isInTransaction)
        #expect(try connection.query(schema) == before)
        #expect(try connection.query("PRAGMA schema_version") == version)
        #expect(try rawQuery(directory.databasePath, "SELECT max(version) FROM schema_migrations") == [[.integer(14)]])
        #expect(try rawQuery(directory.databasePath, "PRAGMA integrity_check") == [[.text("ok")]])
        try Migrator(connection: connection).migrate()
        #expect(try !Self.opcodes(Self.writesNow[0], on: connection).contains("OpenEphemeral"))
    }

    /// A reader opened before the migration, with statements prepared on the old schema, takes up
    /// the new definitions once it commits (the version bump makes it parse the schema again).
    @Test func readerOpenedBeforeTakesUpTheNewDefinitions() throws {
        let (directory, connection) = try MigrationTests.database(
            before: 15,
            holding: """
                INSERT INTO notifications (notification_uuid, app_id, notification_type, received_at, state, signed_payload)
                    VALUES ('held', 'demo', 'TEST', 1, 'held', 'p'), ('applied', 'demo', 'TEST', 2, 'applied', 'p');
                """)
        defer { withExtendedLifetime(directory) {} }
        let reader = try SQLiteConnection(path: directory.databasePath, role: .reader)
        let unapplied = "SELECT notification_uuid FROM notifications WHERE state != 'applied'"
        #expect(try reader.query(unapplied) == [[.text("held")]])

        try Migrator(connection: connection).migrate()

        // Its next statement finds the schema changed and reads it again. (An EXPLAIN prepared
        // before would list its old program: EXPLAIN does not check the schema version.)
        #expect(try reader.query(unapplied) == [[.text("held")]])
        #expect(try !Self.opcodes(Self.writesNow[0], on: reader).contains("OpenEphemeral"))
        #expect(
            try reader.query("SELECT sql FROM sqlite_schema WHERE name = 'notifications'").first?.first?.textValue?
                .contains(Migration.v15.rewrites[0].to) == true)
    }
}
