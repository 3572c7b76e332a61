import Foundation
import Testing

@testable import Storage

/// A restore run as root gives the restored database the owner of the one it replaces (else of
/// its folder), so the service's user can open it.
@Suite(.enabled(if: geteuid() == 0, "chown needs root")) struct RestoreOwnerTests {
    static func owner(_ path: String) -> (uid: uid_t, gid: gid_t, mode: mode_t) {
        var status = stat()
        _ = stat(path, &status)
        return (status.st_uid, status.st_gid, status.st_mode & 0o777)
    }

    @Test func theRestoredFileKeepsTheReplacedDatabasesOwner() throws {
        let directory = try TemporaryDirectory()
        let copy = directory.path + "/backup.sqlite"
        try RestoredPositionsTests.database(copy, events: 1, prefix: "e")
        try RestoredPositionsTests.database(directory.databasePath, events: 1, prefix: "e")
        #expect(chown(directory.databasePath, 4242, 4343) == 0)
        _ = try DatabaseBackup.restore(copy, to: directory.databasePath, at: Date())
        let restored = Self.owner(directory.databasePath)
        #expect(restored.uid == 4242 && restored.gid == 4343)
        #expect(restored.mode == 0o600)
    }

    @Test func withNoDatabaseItTakesTheFoldersOwner() throws {
        let directory = try TemporaryDirectory()
        let copy = directory.path + "/backup.sqlite"
        try RestoredPositionsTests.database(copy, events: 1, prefix: "e")
        #expect(chown(directory.path, 4242, 4343) == 0)
        _ = try DatabaseBackup.restore(copy, to: directory.databasePath, at: Date())
        let restored = Self.owner(directory.databasePath)
        #expect(restored.uid == 4242 && restored.gid == 4343)
        // The lock file the restore made is the service's too, or serve could not take it.
        let lock = Self.owner(DatabaseLock.lockPath(directory.databasePath))
        #expect(lock.uid == 4242 && lock.gid == 4343)
    }

    /// Any command run as root (`import`, `replay`, `backfill`) leaves the lock file to the
    /// database's owner: one left to root, as earlier builds left it, is given back too.
    @Test func aLockTakenAsRootIsTheDatabaseOwners() throws {
        let directory = try TemporaryDirectory()
        try RestoredPositionsTests.database(directory.databasePath, events: 1, prefix: "e")
        #expect(chown(directory.databasePath, 4242, 4343) == 0)
        let lockPath = DatabaseLock.lockPath(directory.databasePath)
        try DatabaseLock(databasePath: directory.databasePath).release()
        #expect(Self.owner(lockPath).uid == 4242 && Self.owner(lockPath).gid == 4343)
        #expect(chown(lockPath, 0, 0) == 0)
        try DatabaseLock(databasePath: directory.databasePath).release()
        #expect(Self.owner(lockPath).uid == 4242 && Self.owner(lockPath).gid == 4343)
    }
}
