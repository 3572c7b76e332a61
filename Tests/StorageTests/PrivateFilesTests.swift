import Foundation
import Testing

@testable import Storage

/// The files of a new database hold Apple's signed payloads and customers' purchases: they are
/// made readable by their owner only, whatever the process's umask (0644 files before).
@Suite struct PrivateFilesTests {
    static func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber).intValue
    }

    @Test func aNewDatabaseAndItsWALAreTheOwnersOnly() throws {
        let directory = try TemporaryDirectory()
        let store = try Store(path: directory.databasePath)
        defer { store.close() }
        #expect(try store.store(makeRecord("private")) == .stored)
        for suffix in ["", "-wal", "-shm"] {
            #expect(try Self.mode(directory.databasePath + suffix) == 0o600, "revenuedot.sqlite\(suffix)")
        }
    }

    /// An existing database keeps the mode its owner gave it.
    @Test func anExistingDatabaseKeepsItsMode() throws {
        let directory = try TemporaryDirectory()
        try Store(path: directory.databasePath).close()
        // The store's WAL can outlive its close (SQLite skips the last connection's checkpoint when
        // it cannot take the lock), and a WAL that exists keeps its own mode. Leaving WAL mode
        // removes it, so the next open makes a new one, which is what this test is about.
        try rawExecute(directory.databasePath, "PRAGMA journal_mode=DELETE")
        try #require(!FileManager.default.fileExists(atPath: directory.databasePath + "-wal"))
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: directory.databasePath)
        let store = try Store(path: directory.databasePath)
        defer { store.close() }
        #expect(try store.store(makeRecord("shared")) == .stored)
        #expect(try Self.mode(directory.databasePath) == 0o640)
        #expect(try Self.mode(directory.databasePath + "-wal") == 0o640)
    }
}
