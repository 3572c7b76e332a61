import Foundation
import Testing

@testable import Storage

/// PostgreSQL's schema and SQLite's have the same tables, columns (with their nullability and
/// order) and indexes (with their table, columns in order, uniqueness and partial condition), so
/// the typed operations read and write the same rows, and find them alike, on both.
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

    /// Each named index alike: table, uniqueness, columns in order, and the condition of a partial
    /// one (the two engines write it differently: PostgreSQL adds parentheses and casts).
    @Test func indexesCoverTheSameColumnsAlike() throws {
        let directory = try TemporaryDirectory()
        try Store(path: directory.databasePath).close()
        var sqlite: [String] = []
        for row in try rawQuery(
            directory.databasePath,
            "SELECT name, tbl_name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
        {
            let (name, table, sql) = (row[0].textValue ?? "", row[1].textValue ?? "", row[2].textValue ?? "")
            let columns = try rawQuery(
                directory.databasePath, "SELECT name FROM pragma_index_info(?) ORDER BY seqno", [.text(name)]
            ).compactMap { $0[0].textValue }
            let condition = sql.range(of: " WHERE ", options: .caseInsensitive).map { String(sql[$0.upperBound...]) }
            sqlite.append(Self.describe(name, table, sql.uppercased().hasPrefix("CREATE UNIQUE"), columns, condition))
        }
        let database = try PostgresTestDatabase()
        let connection = try database.connect()
        try PostgresMigrator(connection: connection).migrate()
        let postgres = try connection.query(
            """
            SELECT i.relname, t.relname, x.indisunique,
                array_to_string(ARRAY(
                    SELECT a.attname FROM unnest(x.indkey) WITH ORDINALITY k(attnum, ord)
                    JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum ORDER BY k.ord), ','),
                pg_get_expr(x.indpred, x.indrelid)
            FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
            WHERE t.relnamespace = current_schema()::regnamespace
                AND i.relname NOT IN (SELECT conname FROM pg_constraint)
            ORDER BY i.relname
            """
        ).map { row in
            Self.describe(
                row[0].textValue ?? "", row[1].textValue ?? "", row[2] == .text("t") || row[2] == .integer(1),
                (row[3].textValue ?? "").split(separator: ",").map(String.init), row[4].textValue)
        }
        #expect(!sqlite.isEmpty)
        #expect(postgres == sqlite)
    }

    /// `name on table (columns) [unique] [where condition]`, the condition written one way.
    static func describe(_ name: String, _ table: String, _ unique: Bool, _ columns: [String], _ condition: String?)
        -> String
    {
        let written = condition.map { text in
            text.lowercased().replacingOccurrences(of: "::text", with: "").replacingOccurrences(of: "!=", with: "<>")
                .filter { $0 != "(" && $0 != ")" }.split(separator: " ").joined(separator: " ")
        }
        return "\(name) on \(table) (\(columns.joined(separator: ", ")))" + (unique ? " unique" : "")
            + (written.map { " where \($0)" } ?? "")
    }
}
