import Foundation
import Testing

@testable import Storage

/// A database file with damaged pages: writes and reads that miss them still succeed, so the
/// write lock alone would say all is well. Once a read or a write meets a damaged page the
/// health check fails, and stays failing, until the file is restored and the store opened again.
@Suite struct DamagedDatabaseTests {
    /// A database holding one notification, with the root page of its index of notification
    /// UUIDs overwritten, as a failing disk or a stray write would leave it. Opening it reads
    /// nothing through that index; storing or finding a notification by UUID does.
    static func damagedDatabase() throws -> TemporaryDirectory {
        let directory = try TemporaryDirectory()
        let store = try Store(path: directory.databasePath)
        #expect(try store.store(makeRecord("before")) == .stored)
        store.close()
        // Everything in the file itself, so the damage is not read past in the WAL.
        try rawExecute(directory.databasePath, "PRAGMA wal_checkpoint(TRUNCATE);")
        let root = try #require(
            try rawQuery(
                directory.databasePath, "SELECT rootpage FROM sqlite_master WHERE name = 'sqlite_autoindex_notifications_1'"
            )
            .first?.first?.integerValue)
        let pageSize = try #require(try rawQuery(directory.databasePath, "PRAGMA page_size").first?.first?.integerValue)
        let file = try #require(FileHandle(forWritingAtPath: directory.databasePath))
        try file.seek(toOffset: UInt64((root - 1) * pageSize))
        try file.write(contentsOf: Data(repeating: 0xa5, count: Int(pageSize)))
        try file.close()
        return directory
    }

    @Test func aWriteMeetingDamageFailsTheHealthCheckForGood() throws {
        let directory = try Self.damagedDatabase()
        let store = try Store(path: directory.databasePath)
        defer { store.close() }
        // Nothing has met the damage yet.
        try store.healthCheck()

        let failure = try #require(throws: StoreError.self) { try store.store(makeRecord("after")) }
        #expect(failure.code == .corrupt)
        #expect(failure.isDamagedFile, "\(failure)")

        // A commit that misses the damaged page succeeds, and the health check still fails.
        try store.write { _ in }
        let health = try #require(throws: StoreError.self) { try store.healthCheck() }
        #expect(health.isDamagedFile)
        #expect(health.message.hasPrefix("the database file is damaged ("), "\(health)")
        #expect(health.message.contains("restore it from a backup"), "\(health)")
        #expect(throws: StoreError.self) { try store.healthCheck() }
    }

    @Test func aReadMeetingDamageFailsTheHealthCheckToo() throws {
        let directory = try Self.damagedDatabase()
        let store = try Store(path: directory.databasePath)
        defer { store.close() }
        let failure = try #require(throws: StoreError.self) { _ = try store.notification(uuid: "before") }
        #expect(failure.isDamagedFile, "\(failure)")
        let health = try #require(throws: StoreError.self) { try store.healthCheck() }
        #expect(health.isDamagedFile, "\(health)")
    }

    /// A file found damaged as a connection opens is a damaged file too.
    @Test func aFileThatIsNoDatabaseIsADamagedFile() throws {
        let directory = try TemporaryDirectory()
        #expect(FileManager.default.createFile(atPath: directory.databasePath, contents: Data(repeating: 0x5a, count: 8192)))
        let error = try #require(throws: StoreError.self) { try SQLiteConnection(path: directory.databasePath, role: .reader) }
        #expect(error.isDamagedFile, "\(error)")
    }

    /// A row that does not decode is `corrupt` too, but says nothing of the file's pages.
    @Test func aRowThatDoesNotDecodeIsNoDamagedFile() throws {
        let error = try #require(throws: StoreError.self) {
            try StoreError.decoding { throw CocoaError(.coderInvalidValue) }
        }
        #expect(error.code == .corrupt)
        #expect(!error.isDamagedFile)
    }
}
