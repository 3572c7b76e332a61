import Foundation
import Testing

@testable import Storage

/// PostgreSQL's schema and SQLite's have the same tables, columns (with their nullability and
/// order) and indexes, so the typed operations read and write the same rows on both.
@Suite(.enabled(if: PostgresTestDatabase.isAvailable)) struct PostgresSchemaTests {
    @Test func sameTablesColumnsAndIndexesAsSQLite() throws {
        let directory = try TemporaryDirectory()
        try Store(path: directory.databasePath).close()
        let sqliteTables = try rawQuery(
            directory.databasePath, "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name"
        ).compactMap { $0[0].textValue }
        var sqlite: [String: [String]] = [:]
        for table in sqliteTables {
            sqlite[table] = try rawQuery(
                directory.databasePath, "SELECT name, \"notnull\", pk FROM pragma_table_info(?)", [.text(table)]
            )
            .map { row in
                // A primary key column is NOT NULL in PostgreSQL, whatever SQLite's table says.
                let notNull = row[1] == .integer(1) || row[2] != .integer(0)
                return "\(row[0].textValue ?? "") \(notNull ? "not null" : "null")"
            }
        }
        let sqliteIndexes = try rawQuery(
            directory.databasePath,
            "SELECT name FROM sqlite_schema WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex_%' ORDER BY name"
        ).compactMap { $0[0].textValue }

        let database = try PostgresTestDatabase()
        let connection = try database.connect()
        try PostgresMigrator(connection: connection).migrate()
        var postgres: [String: [String]] = [:]
        for row in try connection.query(
            """
            SELECT table_name, column_name, is_nullable FROM information_schema.columns
            WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position
            """)
        {
            let table = row[0].textValue ?? ""
            postgres[table, default: []].append("\(row[1].textValue ?? "") \(row[2] == .text("NO") ? "not null" : "null")")
        }
        let postgresIndexes = try connection.query(
            // Those behind a primary key or UNIQUE constraint are SQLite's automatic indexes.
            "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() "
                + "AND indexname NOT IN (SELECT conname FROM pg_constraint) ORDER BY indexname"
        ).compactMap { $0[0].textValue }

        #expect(postgres.keys.sorted() == sqlite.keys.sorted())
        for table in sqlite.keys.sorted() {
            #expect(postgres[table] == sqlite[table], "\(table)")
        }
        #expect(postgresIndexes == sqliteIndexes)
    }
}
