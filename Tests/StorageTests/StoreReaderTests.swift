import Foundation
import Testing

@_spi(StoreSQL) @testable import Storage

/// `StoreReader`: what read-only commands open. It reads what the store committed, beside a
/// running writer too, and never changes the database: no migration, no write, files as they were.
@Suite struct StoreReaderTests {
    /// A database with `uuids` stored and one reject, closed by its (exclusive) store.
    func storedDatabase(_ uuids: [String]) throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        let store = try Store(path: directory.databasePath, exclusive: true)
        for uuid in uuids { #expect(try store.store(makeRecord(uuid)) == .stored) }
        store.recordReject(Reject(appId: "demo", status: "invalidSignature", reason: "forged", at: 1))
        store.close()
        return directory
    }

    @Test func readsWhatTheStoreCommitted() throws {
        let directory = try storedDatabase(["a", "b"])
        let reader = try StoreReader(path: directory.databasePath)
        defer { reader.close() }
        #expect(try reader.notifications(NotificationFilter()).map(\.notificationUUID) == ["b", "a"])
        #expect(try reader.notification(uuid: "a")?.notificationUUID == "a")
        #expect(try reader.notification(uuid: "missing") == nil)
        let rejects = try reader.rejectLog()
        #expect(rejects.counts == ["invalidSignature": 1])
        #expect(rejects.recent.map(\.reason) == ["forged"])
        #expect(
            try reader.read { (rows) throws(StoreError) in try rows.query("SELECT count(*) FROM notifications") } == [
                [.integer(2)]
            ])
    }

    /// A server's store stays open and keeps writing; the reader sees each commit.
    @Test func readsBesideARunningWriter() throws {
        let directory = try TemporaryDirectory()
        let store = try Store(path: directory.databasePath, exclusive: true)
        defer { store.close() }
        #expect(try store.store(makeRecord("first")) == .stored)
        let reader = try StoreReader(path: directory.databasePath)
        defer { reader.close() }
        #expect(try reader.notifications(NotificationFilter()).count == 1)
        #expect(try store.store(makeRecord("second")) == .stored)
        #expect(try reader.notifications(NotificationFilter()).map(\.notificationUUID) == ["second", "first"])
    }

    /// Opening, reading and closing leave the database file byte for byte as it was, and write no
    /// frame to the WAL. (SQLite opens the WAL and shared-memory files of a WAL database even to
    /// read it, creating them empty when the store's close removed them, and a read-only
    /// connection cannot remove them again.)
    @Test func leavesTheDatabaseAsItWas() throws {
        let directory = try storedDatabase(["a"])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: directory.databasePath))

        let reader = try StoreReader(path: directory.databasePath)
        _ = try reader.notifications(NotificationFilter())
        _ = try reader.rejectLog()
        reader.close()

        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.databasePath)) == bytes)
        let wal = directory.databasePath + "-wal"
        if FileManager.default.fileExists(atPath: wal) {
            #expect(try FileManager.default.attributesOfItem(atPath: wal)[.size] as? UInt64 == 0)
        }
    }

    @Test func cannotWrite() throws {
        let directory = try storedDatabase(["a"])
        let reader = try StoreReader(path: directory.databasePath)
        defer { reader.close() }
        #expect(throws: StoreError.self) {
            try reader.read { (rows) throws(StoreError) in try rows.query("DELETE FROM notifications") }
        }
        #expect(try reader.notifications(NotificationFilter()).count == 1)
    }

    /// An older schema is refused with what to do, and is not migrated.
    @Test func refusesAnOlderSchemaAndLeavesItAlone() throws {
        let directory = try storedDatabase([])
        let path = directory.databasePath
        try rawExecute(path, "DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations)")
        let versions = try rawQuery(path, "SELECT version FROM schema_migrations ORDER BY version")

        let error = #expect(throws: StoreError.self) { try StoreReader(path: path) }
        #expect(error?.code == .invalid)
        #expect(error?.message.contains("older than this build's") == true)
        #expect(error?.message.contains("start revenuedot serve") == true)
        #expect(try rawQuery(path, "SELECT version FROM schema_migrations ORDER BY version") == versions)
    }

    @Test func refusesANewerSchema() throws {
        let directory = try storedDatabase([])
        try rawExecute(
            directory.databasePath, "INSERT INTO schema_migrations (version, applied_at) VALUES (9999, 'later')")
        let error = #expect(throws: StoreError.self) { try StoreReader(path: directory.databasePath) }
        #expect(error?.message.contains("newer RevenueDot") == true)
    }

    @Test func refusesAFileWithoutTheSchema() throws {
        let directory = try TemporaryDirectory()
        try rawExecute(directory.databasePath, "CREATE TABLE other (id INTEGER)")
        let error = #expect(throws: StoreError.self) { try StoreReader(path: directory.databasePath) }
        #expect(error?.message.contains("no RevenueDot schema") == true)
    }

    /// With the tables there but no migration recorded, starting serve would not help (it would
    /// create the tables again): the refusal says what is wrong instead.
    @Test func refusesAnEmptyMigrationHistory() throws {
        let directory = try storedDatabase([])
        try rawExecute(directory.databasePath, "DELETE FROM schema_migrations")
        let error = #expect(throws: StoreError.self) { try StoreReader(path: directory.databasePath) }
        #expect(error?.message.contains("schema_migrations is empty") == true)
        #expect(error?.message.contains("start revenuedot serve") == false)
    }

    @Test func refusesAMissingFileWithoutCreatingIt() throws {
        let directory = try TemporaryDirectory()
        #expect(throws: StoreError.self) { try StoreReader(path: directory.databasePath) }
        #expect(!FileManager.default.fileExists(atPath: directory.databasePath))
    }
}
