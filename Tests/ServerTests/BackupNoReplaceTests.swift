import Foundation
import Testing

@testable import Server
@testable import Storage

/// A backup never overwrites a file: not even one made at its name while it copied.
@Suite struct BackupNoReplaceTests {
    @Test func aFileMadeAtTheNameDuringTheCopyIsKept() throws {
        let fixture = try BackupRestoreTests.fixture(storing: 1)
        let destination = fixture.directory.path("nightly.sqlite")
        let error = #expect(throws: StoreError.self) {
            try DatabaseBackup.backup(database: fixture.databasePath, to: destination) { _ in
                // Another job writes its file there while this backup copies.
                _ = FileManager.default.createFile(atPath: destination, contents: Data("another job's file".utf8))
            }
        }
        #expect(error?.message == "\(destination) appeared during the backup: name a new file (a backup never overwrites one)")
        #expect(try String(contentsOfFile: destination, encoding: .utf8) == "another job's file")
        #expect(!FileManager.default.fileExists(atPath: destination + ".partial"))
        // Under a free name it is made, and the unfinished copy's name is gone.
        let summary = try DatabaseBackup.backup(database: fixture.databasePath, to: destination + "-2")
        #expect(summary.notifications == 1)
        #expect(!FileManager.default.fileExists(atPath: destination + "-2.partial"))
    }

    /// A backup killed between naming its copy and letting the partial name go leaves both
    /// names on one file: the next backup to that name lets the partial name go, and never
    /// empties the backup (moved away meanwhile) through it.
    @Test func aPartialNameLeftOnAFinishedBackupIsLetGo() throws {
        let fixture = try BackupRestoreTests.fixture(storing: 1)
        let kept = fixture.directory.path("kept.sqlite")
        _ = try DatabaseBackup.backup(database: fixture.databasePath, to: kept)
        let again = fixture.directory.path("again.sqlite")
        #expect(link(kept, again + ".partial") == 0)
        _ = try DatabaseBackup.backup(database: fixture.databasePath, to: again)
        #expect(try BackupRestoreTests.notificationCount(kept) == 1)
        #expect(try BackupRestoreTests.notificationCount(again) == 1)
        #expect(!FileManager.default.fileExists(atPath: again + ".partial"))
    }
}

/// What a backup of a stopped database leaves beside it.
@Suite struct BackupOfStoppedDatabaseTests {
    @Test func aBackupLeavesNoFilesBesideAStoppedDatabase() throws {
        let fixture = try BackupRestoreTests.fixture(storing: 2)
        let beside = { (suffix: String) in FileManager.default.fileExists(atPath: fixture.databasePath + suffix) }
        let before = DatabaseBackup.sideFileSuffixes.filter(beside)
        _ = try DatabaseBackup.backup(database: fixture.databasePath, to: fixture.directory.path("copy.sqlite"))
        #expect(DatabaseBackup.sideFileSuffixes.filter(beside) == before, "\(before)")
        #expect(try BackupRestoreTests.notificationCount(fixture.databasePath) == 2)
    }
}
