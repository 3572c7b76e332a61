import Foundation
import Testing

@testable import Storage

@Suite(.enabled(if: PostgresTestDatabase.isAvailable)) struct PostgresMigratorTests {
    static func versions(_ connection: PostgresConnection) throws -> [SQLValue] {
        try connection.query("SELECT version FROM schema_migrations ORDER BY version").map { $0[0] }
    }

    @Test func aNewDatabaseGetsTheSchemaOnceHoweverManyNodesStartTogether() throws {
        let database = try PostgresTestDatabase()
        let failures = Collected<String>()
        let created = Collected<Bool>()
        concurrently(4, threads: 4) { _ in
            do {
                created.append(try PostgresMigrator(connection: try database.connect()).migrate().created)
            } catch {
                failures.append("\(error)")
            }
        }
        #expect(failures.all.isEmpty)
        // One node made it, and only that one says so (serve's "an empty one was made").
        #expect(created.all.filter { $0 }.count == 1, "\(created.all)")
        let connection = try database.connect()
        let all = [PostgresSchema.baselineVersion] + PostgresSchema.later.map(\.version)
        #expect(try Self.versions(connection) == all.map(SQLValue.integer))
        #expect(try PostgresMigrator(connection: connection).migrate().upgrade == nil)
        #expect(try Self.versions(connection) == all.map(SQLValue.integer))
    }

    /// A database an older build made (at the baseline) gets the later migrations, once, and
    /// says so; until then a reader refuses it and the probe calls it older.
    @Test func anOlderDatabaseGetsTheLaterMigrations() throws {
        let database = try PostgresTestDatabase()
        let connection = try database.connect()
        try connection.execute(
            script: """
                CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY, applied_at TEXT NOT NULL);
                \(PostgresSchema.baseline)
                INSERT INTO schema_migrations (version, applied_at) VALUES (\(PostgresSchema.baselineVersion), 'then');
                """)
        #expect(
            try PostgresMigrator(connection: connection).state()
                == .older(version: PostgresSchema.baselineVersion, pending: PostgresSchema.later.count))
        let refused = #expect(throws: StoreError.self) { try PostgresMigrator(connection: connection).requireCurrent() }
        #expect(refused?.message.contains("older than this build's") == true, "\(refused?.message ?? "")")
        let upgrade = try PostgresMigrator(connection: connection).migrate().upgrade
        #expect(
            upgrade
                == SchemaUpgrade(
                    from: PostgresSchema.baselineVersion, to: PostgresSchema.currentVersion,
                    migrations: PostgresSchema.later.count))
        #expect(try PostgresMigrator(connection: connection).state() == .current(version: PostgresSchema.currentVersion))
        try PostgresMigrator(connection: connection).requireCurrent()
        #expect(try connection.query("SELECT count(*) FROM backfill_marks") == [[.integer(0)]])
    }

    @Test func aDatabaseThatIsNotRevenueDotsIsLeftAlone() throws {
        let database = try PostgresTestDatabase()
        let connection = try database.connect()
        try connection.execute(script: "CREATE TABLE invoices (id BIGINT)")
        let error = #expect(throws: StoreError.self) { try PostgresMigrator(connection: connection).migrate() }
        #expect(error?.message.contains("not RevenueDot's") == true, "\(error?.message ?? "")")
        let tables = try connection.query(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")
        #expect(tables == [[.text("invoices")]])
    }

    @Test func aNewerSchemaIsRefused() throws {
        let database = try PostgresTestDatabase()
        let connection = try database.connect()
        try PostgresMigrator(connection: connection).migrate()
        try connection.run("INSERT INTO schema_migrations (version, applied_at) VALUES (99, 'later')")
        let error = #expect(throws: StoreError.self) { try PostgresMigrator(connection: connection).migrate() }
        #expect(error?.message.contains("schema version 99") == true, "\(error?.message ?? "")")
        #expect(!connection.isInTransaction)
    }
}
