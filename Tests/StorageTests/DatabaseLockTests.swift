import Foundation
import Testing

@testable import Storage

/// One writing process per database (`DatabaseLock`): a second exclusive store fails before it
/// touches the database, others still open it, and closing lets the lock go.
@Suite struct DatabaseLockTests {
    @Test func aSecondExclusiveStoreIsRefusedUntilTheFirstCloses() throws {
        let directory = try TemporaryDirectory()
        let first = try Store(path: directory.databasePath, exclusive: true)
        _ = try first.store(makeRecord("a"))
        let refused = #expect(throws: StoreError.self) { try Store(path: directory.databasePath, exclusive: true) }
        #expect(refused?.code == .unavailable)
        #expect(refused?.message.contains("is in use by this process already") == true)
        // Through a symbolic link it is the same database, and the same lock.
        let link = directory.path + "/link.sqlite"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: directory.databasePath)
        #expect(throws: StoreError.self) { try Store(path: link, exclusive: true) }
        // A store that is not exclusive (a command reading what is stored) opens beside it.
        let reader = try Store(path: directory.databasePath)
        #expect(try reader.notification(uuid: "a") != nil)
        reader.close()
        first.close()
        let second = try Store(path: directory.databasePath, exclusive: true)
        #expect(try second.notification(uuid: "a") != nil)
        second.close()
        #expect(try String(contentsOfFile: directory.databasePath + ".lock", encoding: .utf8) == "\(getpid())\n")
    }

    /// A second name of the file (a hard link) would have its own lock and its own WAL: a
    /// database with several names is refused, and opens again once it has one.
    @Test func aDatabaseWithTwoNamesIsRefused() throws {
        let directory = try TemporaryDirectory()
        try Store(path: directory.databasePath, exclusive: true).close()
        let other = directory.path + "/other.sqlite"
        #expect(link(directory.databasePath, other) == 0)
        for name in [directory.databasePath, other] {
            let refused = try #require(throws: StoreError.self) { try Store(path: name, exclusive: true) }
            #expect(refused.message.contains("has 2 names (hard links)"), "\(refused)")
        }
        #expect(!FileManager.default.fileExists(atPath: other + ".lock"))
        #expect(unlink(other) == 0)
        try Store(path: directory.databasePath, exclusive: true).close()
    }

    /// A command's probe (`DatabaseLock.holderProblem`) holds a shared lock for a moment: a
    /// starting server waits it out instead of reporting the database in use; a lock held on
    /// is still refused.
    @Test func aMomentaryProbeDoesNotRefuseAStart() throws {
        let directory = try TemporaryDirectory()
        let lockPath = directory.databasePath + ".lock"
        let probe = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        #expect(probe >= 0)
        defer { close(probe) }
        #expect(flock(probe, LOCK_SH | LOCK_NB) == 0)
        let released = DispatchGroup()
        released.enter()
        Thread.detachNewThread {
            usleep(20_000)
            _ = flock(probe, LOCK_UN)
            released.leave()
        }
        // Runs before the close above, however the test ends: the thread's `flock` on a number
        // closed and reused meanwhile would unlock another test's database.
        defer { released.wait() }
        let store = try Store(path: directory.databasePath, exclusive: true)
        released.wait()
        store.close()
        // Held on, the shared lock refuses a start as a running server's lock does.
        #expect(flock(probe, LOCK_SH | LOCK_NB) == 0)
        let refused = #expect(throws: StoreError.self) { try Store(path: directory.databasePath, exclusive: true) }
        #expect(refused?.message.contains("is in use by") == true)
    }

    /// A shared hold (migrate-db's, on a lock file it cannot write) keeps a server out until it
    /// lets go; there is none to take on a database no server ever locked, nor while one holds it.
    @Test func aSharedHoldKeepsAServerOut() throws {
        let directory = try TemporaryDirectory()
        #expect(DatabaseLock.holdShared(databasePath: directory.databasePath) == nil)
        try Store(path: directory.databasePath, exclusive: true).close()
        let held = try #require(DatabaseLock.holdShared(databasePath: directory.databasePath))
        #expect(throws: StoreError.self) { try Store(path: directory.databasePath, exclusive: true) }
        close(held)
        let server = try Store(path: directory.databasePath, exclusive: true)
        #expect(DatabaseLock.holdShared(databasePath: directory.databasePath) == nil)
        server.close()
    }
}
