import Foundation
import Testing

@testable import Storage

@Suite struct MigrationTests {
    @Test func migrationsAreAppliedOnceAndReopeningChangesNothing() throws {
        let directory = try TemporaryDirectory()
        try SQLiteStore(path: directory.databasePath).close()
        let first = try rawQuery(directory.databasePath, "SELECT version, applied_at FROM schema_migrations")
        try SQLiteStore(path: directory.databasePath).close()
        let second = try rawQuery(directory.databasePath, "SELECT version, applied_at FROM schema_migrations")

        #expect(first.map { $0[0] } == Migration.all.map { .integer($0.version) })
        #expect(second == first)
        let tables = try rawQuery(
            directory.databasePath, "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
        #expect(
            tables.compactMap { $0[0].textValue } == [
                "applied_inputs", "commerce_requests", "customers", "deliveries", "events", "jws_headers", "notifications",
                "posted_transactions", "purchase_facts", "purchase_views", "purchases",
                "reject_counts", "rejects", "schema_migrations", "timers", "unattached_facts",
            ])
    }

    @Test func databaseFromANewerBuildIsRefused() throws {
        let directory = try TemporaryDirectory()
        try SQLiteStore(path: directory.databasePath).close()
        try rawExecute(
            directory.databasePath, "INSERT INTO schema_migrations (version, applied_at) VALUES (999, 'future')")

        let error = #expect(throws: StoreError.self) { try SQLiteStore(path: directory.databasePath) }
        #expect(error?.code == .invalid)
        #expect(error?.message.contains("schema version 999") == true)
    }

    @Test func fileThatIsNotADatabaseIsReportedCorrupt() throws {
        let directory = try TemporaryDirectory()
        try String(repeating: "not a database ", count: 100).write(
            toFile: directory.databasePath, atomically: true, encoding: .utf8)

        let error = #expect(throws: StoreError.self) { try SQLiteStore(path: directory.databasePath) }
        #expect(error?.code == .corrupt)
        #expect(error?.message.contains("SQLite result code 26") == true)
    }
}
