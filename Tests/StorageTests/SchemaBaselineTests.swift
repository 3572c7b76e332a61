import Foundation
import Testing

@testable import Storage

/// `Sources/Storage/Schema/schema.sql` is the schema every migration together gives a new
/// database, for people to read. It is checked here, so it cannot drift from the migrations:
/// after a new migration, run this test with `REVENUEDOT_WRITE_SCHEMA=1` to write it again.
@Suite("Schema baseline")
struct SchemaBaselineTests {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/Storage/Schema/schema.sql")

    /// The schema of a freshly migrated database: every table, index and trigger, by name.
    static func migratedSchema() throws -> String {
        let directory = try TemporaryDirectory()
        let store = try Store(path: directory.databasePath)
        store.close()
        let rows = try rawQuery(
            directory.databasePath,
            """
            SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'
            ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 ELSE 2 END, name
            """)
        let version =
            try rawQuery(directory.databasePath, "SELECT max(version) FROM schema_migrations").first?.first?.integerValue ?? 0
        let statements = rows.compactMap { $0.first?.textValue }.map { $0 + ";" }
        return "-- RevenueDot's SQLite schema at migration \(version): what the migrations in this folder give a new\n"
            + "-- database. Generated; checked by SchemaBaselineTests.\n\n" + statements.joined(separator: "\n\n") + "\n"
    }

    @Test func theBaselineIsWhatTheMigrationsGive() throws {
        let migrated = try Self.migratedSchema()
        if ProcessInfo.processInfo.environment["REVENUEDOT_WRITE_SCHEMA"] == "1" {
            try migrated.write(to: Self.file, atomically: true, encoding: .utf8)
        }
        let baseline = try String(contentsOf: Self.file, encoding: .utf8)
        #expect(baseline == migrated, "Sources/Storage/Schema/schema.sql differs: run with REVENUEDOT_WRITE_SCHEMA=1")
    }
}
