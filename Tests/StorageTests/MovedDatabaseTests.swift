import Foundation
import Testing

@testable import Storage

/// A database or WAL deleted or replaced under its path while the store has it open: SQLite goes on
/// writing through its descriptors to a file nothing will read again, so nothing may be answered
/// as stored from then on. Each flush checks that the paths still name the files opened.
@Suite struct MovedDatabaseTests {
    /// A store with one notification stored and answered before `move` runs on its directory;
    /// returns the failure of the next store, and checks that later stores and the health check
    /// fail with it too.
    static func nextStoreAfter(_ move: (TemporaryDirectory) throws -> Void) throws -> StoreError {
        let directory = try TemporaryDirectory()
        let store = try Store(path: directory.databasePath)
        defer { store.close() }
        #expect(try store.store(makeRecord("before")) == .stored)
        try move(directory)
        let failure = try #require(throws: StoreError.self) { try store.store(makeRecord("after")) }
        #expect(failure.code == .io)
        #expect(throws: StoreError.self) { try store.store(makeRecord("later")) }
        #expect(throws: StoreError.self) { try store.healthCheck() }
        return failure
    }

    @Test func deletedDatabaseAnswersNothingStored() throws {
        let failure = try Self.nextStoreAfter { directory in
            for suffix in ["", "-wal", "-shm"] { try FileManager.default.removeItem(atPath: directory.databasePath + suffix) }
        }
        #expect(failure.message.contains("revenuedot.sqlite is gone"), "\(failure)")
        #expect(failure.message.contains("restart RevenueDot"), "\(failure)")
    }

    @Test func databaseReplacedByAnotherFileAnswersNothingStored() throws {
        let failure = try Self.nextStoreAfter { directory in
            // A restore from a copy: another file moved over the path, as `mv` does.
            let copy = directory.path + "/copy.sqlite"
            try FileManager.default.copyItem(atPath: directory.databasePath, toPath: copy)
            #expect(rename(copy, directory.databasePath) == 0)
        }
        #expect(failure.message.contains("revenuedot.sqlite is another file now"), "\(failure)")
    }

    @Test func deletedWALAnswersNothingStored() throws {
        let failure = try Self.nextStoreAfter { directory in
            try FileManager.default.removeItem(atPath: directory.databasePath + "-wal")
        }
        #expect(failure.message.contains("revenuedot.sqlite-wal is gone"), "\(failure)")
    }

    /// The check must not refuse a store opened through a symbolic link (SQLite opens the file it
    /// points to), nor a WAL that a checkpoint truncated in place.
    @Test func symbolicLinkAndTruncatedWALStillStore() throws {
        let directory = try TemporaryDirectory()
        let real = directory.path + "/real.sqlite"
        try Store(path: real).close()
        try FileManager.default.createSymbolicLink(atPath: directory.databasePath, withDestinationPath: real)
        let store = try Store(path: directory.databasePath)
        defer { store.close() }
        #expect(try store.store(makeRecord("first")) == .stored)
        let checkpoint = try rawQuery(real, "PRAGMA wal_checkpoint(TRUNCATE)")
        #expect(checkpoint.first?.first?.integerValue == 0, "the checkpoint was not blocked: \(checkpoint)")
        #expect(try store.store(makeRecord("second")) == .stored)
        try store.healthCheck()
        #expect(try store.notifications(NotificationFilter()).count == 2)
    }
}
