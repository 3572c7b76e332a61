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
        concurrently(4, threads: 4) { _ in
            do {
                try PostgresMigrator(connection: try database.connect()).migrate()
            } catch {
                failures.append("\(error)")
            }
        }
        #expect(failures.all.isEmpty)
        let connection = try database.connect()
        #expect(try Self.versions(connection) == [.integer(PostgresSchema.baselineVersion)])
        try PostgresMigrator(connection: connection).migrate()
        #expect(try Self.versions(connection) == [.integer(PostgresSchema.baselineVersion)])
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
