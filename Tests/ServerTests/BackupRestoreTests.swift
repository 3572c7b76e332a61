import Foundation
import LoopbackClient
import Synchronization
import Testing

@testable import Server
@_spi(StoreSQL) @testable import Storage
@testable import Tools

/// `revenuedot backup` while `serve` runs, and `revenuedot restore` once it is stopped.
@Suite struct BackupRestoreTests {
    static func notificationCount(_ path: String) throws -> Int {
        let reader = try StoreReader(path: path)
        defer { reader.close() }
        return try reader.read { (rows) throws(StoreError) in
            Int(try rows.query("SELECT count(*) FROM notifications", []).first?.first?.integerValue ?? -1)
        }
    }

    /// A fixture whose database a stopped server left holding `count` notifications.
    static func fixture(storing count: Int) throws -> ServerFixture {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        for _ in 0..<count { #expect(try connection.postNotification(try fixture.signer.notification()).status == 200) }
        return fixture
    }

    @Test func aBackupMadeUnderLoadIsWholePrivateAndRestores() throws {
        let fixture = try ServerFixture()
        let server = try ChildServer(configPath: fixture.configPath)
        let connection = try LoopbackConnection(port: server.port)
        for _ in 0..<20 { #expect(try connection.postNotification(try fixture.signer.notification()).status == 200) }
        // Notifications keep arriving while the backup is made.
        let acknowledged = Atomic(0)
        let writer = Thread {
            guard let other = try? LoopbackConnection(port: server.port) else { return }
            for _ in 0..<30 where (try? other.postNotification(try fixture.signer.notification()))?.status == 200 {
                acknowledged.add(1, ordering: .relaxed)
            }
        }
        writer.start()
        let backup = fixture.directory.path("backups/first.sqlite")
        try FileManager.default.createDirectory(
            atPath: fixture.directory.path("backups"), withIntermediateDirectories: true)
        let made = try runCLI(["backup", "--config", fixture.configPath, "--out", backup])
        #expect(made.status == 0, "\(made.output)")
        #expect(made.output.hasPrefix("revenuedot backup: \(fixture.databasePath) copied to \(backup) ("), "\(made.output)")
        let mode = try FileManager.default.attributesOfItem(atPath: backup)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(!FileManager.default.fileExists(atPath: backup + ".partial"))
        let inBackup = try Self.notificationCount(backup)
        #expect(inBackup >= 20 && inBackup <= 50, "\(inBackup)")

        // A second backup never overwrites the first; restore is refused while serve runs.
        let again = try runCLI(["backup", "--config", fixture.configPath, "--out", backup])
        #expect(again.status == 1 && again.output.contains("exists already"), "\(again.output)")
        #expect(!again.output.contains("storage"), "\(again.output)")
        let nowhere = fixture.directory.path("missing/first.sqlite")
        let lost = try runCLI(["backup", "--config", fixture.configPath, "--out", nowhere])
        #expect(
            lost.output == "revenuedot backup: the folder \(fixture.directory.path("missing")) does not exist: "
                + "create it, or name a file in another\n", "\(lost.output)")
        #expect(lost.status == 1)
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.path("missing")))
        let refused = try runCLI(["restore", backup, "--config", fixture.configPath])
        #expect(refused.status == 1 && refused.output.contains("is in use by another RevenueDot process"), "\(refused.output)")

        while writer.isExecuting { Thread.sleep(forTimeInterval: 0.05) }
        let late = try fixture.signer.notification()
        #expect(try connection.postNotification(late).status == 200)
        server.kill(SIGTERM)
        #expect(server.wait(timeout: 30) == 0)
        let before = try Self.notificationCount(fixture.databasePath)
        #expect(acknowledged.load(ordering: .relaxed) == 30, "every post during the backup was answered 200")
        #expect(before == 51, "everything answered 200 is stored")

        let restored = try runCLI(["restore", backup, "--config", fixture.configPath])
        #expect(restored.status == 0, "\(restored.output)")
        // The backup is one file, and reading it leaves nothing beside it.
        #expect(!FileManager.default.fileExists(atPath: backup + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: backup + "-shm"))
        #expect(restored.output.contains("the database it replaced is kept as \(fixture.databasePath).before-restore-"))
        #expect(try Self.notificationCount(fixture.databasePath) == inBackup)
        let files = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.url.path)
        let kept = files.first { $0.hasPrefix("revenuedot.sqlite.before-restore-") && !$0.hasSuffix("-wal") }
        // The stopped server left an empty WAL, which holds nothing to keep.
        #expect(!files.contains { $0.hasPrefix("revenuedot.sqlite.before-restore-") && $0.hasSuffix("-wal") }, "\(files)")
        #expect(try Self.notificationCount(fixture.directory.path(try #require(kept))) == before)

        // The restored server serves, and the notification sent since the backup is stored again
        // when Apple retries it.
        let again2 = try ChildServer(configPath: fixture.configPath)
        let after = try LoopbackConnection(port: again2.port)
        #expect(try after.postNotification(late).status == 200)
        let body = String(decoding: try after.postNotification(late).body, as: UTF8.self)
        #expect(body.contains("duplicate"), "\(body)")
        again2.kill(SIGTERM)
        #expect(again2.wait(timeout: 30) == 0)
    }

    /// After a refused restore: the database holds `original`, and neither a kept copy nor a
    /// staging file is left beside it.
    static func expectRestoreChangedNothing(_ fixture: ServerFixture, database original: Data) throws {
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.databasePath)) == original)
        let left = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.url.path)
        #expect(!left.contains { $0.contains("before-restore") || $0.hasSuffix(".restoring") }, "\(left)")
    }

    @Test func restoreRefusesWhatIsNotARevenueDotBackupAndChangesNothing() throws {
        let fixture = try Self.fixture(storing: 1)
        let original = try Data(contentsOf: URL(fileURLWithPath: fixture.databasePath))
        let text = try fixture.directory.write("notes.txt", "not a database")
        let missing = fixture.directory.path("missing.sqlite")
        let folder = fixture.directory.path("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for (file, message) in [
            (text, "\(text) is not a SQLite database"), (missing, "there is no file at \(missing)"),
            (folder, "\(folder) is a directory, not a database file"),
            (fixture.databasePath, "\(fixture.databasePath) is the database itself: name a backup of it"),
        ] {
            let result = try runCLI(["restore", file, "--config", fixture.configPath])
            #expect(result.status == 1, "\(result.output)")
            #expect(result.output.contains(message), "\(result.output)")
            #expect(!result.output.contains("PRAGMA"), "\(result.output)")
            #expect(result.output.split(separator: "\n").count == 1, "\(result.output)")
        }
        // A SQLite file that is not RevenueDot's.
        let foreign = fixture.directory.path("foreign.sqlite")
        let made = try DeploymentFilesTests.run(
            "/usr/bin/python3",
            [
                "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('CREATE TABLE t (x)'); c.commit()",
                foreign,
            ])
        #expect(made.0 == 0, "\(made.1)")
        let result = try runCLI(["restore", foreign, "--config", fixture.configPath])
        #expect(result.status == 1 && result.output.contains("no RevenueDot schema"), "\(result.output)")
        try Self.expectRestoreChangedNothing(fixture, database: original)
    }

    /// A backup cut short or overwritten in places is refused in one line that names it, never
    /// SQLite's statement or its multi-line report, and the database stays as it was.
    @Test func restoreRefusesADamagedBackupInOneLine() throws {
        let fixture = try Self.fixture(storing: 200)
        let backup = fixture.directory.path("backup.sqlite")
        let made = try runCLI(["backup", "--out", backup, "--config", fixture.configPath])
        #expect(made.status == 0, "\(made.output)")
        let whole = try Data(contentsOf: URL(fileURLWithPath: backup))
        let original = try Data(contentsOf: URL(fileURLWithPath: fixture.databasePath))
        #expect(whole.count >= 64 * 4096, "\(whole.count) bytes")
        // Cut short at half its pages (SQLite cannot open it); and whole, with one page near its
        // end overwritten (it opens and copies, and quick_check finds the damage).
        let truncated = fixture.directory.path("truncated.sqlite")
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: truncated))
        var overwritten = whole
        let page = whole.count - 3 * 4096
        overwritten.replaceSubrange(page..<page + 4096, with: Data(repeating: 0x5A, count: 4096))
        let damaged = fixture.directory.path("damaged.sqlite")
        try overwritten.write(to: URL(fileURLWithPath: damaged))
        for file in [truncated, damaged] {
            let result = try runCLI(["restore", file, "--config", fixture.configPath])
            #expect(result.status == 1, "\(result.output)")
            #expect(result.output.contains(": \(file) is "), "\(result.output)")
            #expect(result.output.split(separator: "\n").count == 1, "\(result.output)")
            #expect(!result.output.contains("PRAGMA") && !result.output.contains("***"), "\(result.output)")
        }
        try Self.expectRestoreChangedNothing(fixture, database: original)
    }

    /// `FILE.partial` is a backup's own: one a stopped backup left is taken over, one another
    /// backup is writing refuses this one, and a file a backup did not make is never touched.
    @Test func aPartialCopyIsTakenOverOnlyWhenABackupLeftIt() throws {
        let fixture = try Self.fixture(storing: 1)
        func backup(_ name: String) throws -> (status: Int32, output: String) {
            try runCLI(["backup", "--out", fixture.directory.path(name), "--config", fixture.configPath])
        }
        // A user's own file of that name: refused, kept as it was.
        let notes = try fixture.directory.write("notes.sqlite.partial", "my notes")
        let refused = try backup("notes.sqlite")
        #expect(refused.status == 1 && refused.output.contains("is not a backup's unfinished copy"), "\(refused.output)")
        #expect(refused.output.split(separator: "\n").count == 1, "\(refused.output)")
        #expect(try String(contentsOfFile: notes, encoding: .utf8) == "my notes")
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.path("notes.sqlite")))
        // What a backup killed partway leaves: the start of a SQLite file, and its journal.
        let original = try Data(contentsOf: URL(fileURLWithPath: fixture.databasePath))
        try original.prefix(4096).write(to: URL(fileURLWithPath: fixture.directory.path("stale.sqlite.partial")))
        _ = try fixture.directory.write("stale.sqlite.partial-journal", "")
        let taken = try backup("stale.sqlite")
        #expect(taken.status == 0, "\(taken.output)")
        #expect(try Self.notificationCount(fixture.directory.path("stale.sqlite")) == 1)
        let left = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.url.path)
        #expect(!left.contains { $0.hasPrefix("stale.sqlite.partial") }, "\(left)")
        // Another backup writing to the same file now: this one waits for nothing and changes nothing.
        let busy = fixture.directory.path("busy.sqlite.partial")
        let held = open(busy, O_RDWR | O_CREAT, 0o600)
        defer { close(held) }
        #expect(flock(held, LOCK_EX | LOCK_NB) == 0)
        let second = try backup("busy.sqlite")
        #expect(second.status == 1 && second.output.contains("another backup is writing"), "\(second.output)")
        #expect(FileManager.default.fileExists(atPath: busy))
    }

    /// A copy the disk (here a file size limit) cannot hold is one line saying so, and leaves
    /// nothing behind: no backup, no partial file or journal, the database as it was.
    @Test func aCopyTheDiskCannotHoldSaysSoAndLeavesNothing() throws {
        let fixture = try Self.fixture(storing: 40)
        let original = try Data(contentsOf: URL(fileURLWithPath: fixture.databasePath))
        #expect(original.count > 64 * 1024)
        let backup = fixture.directory.path("b.sqlite")
        let result = try runCLI(["backup", "--config", fixture.configPath, "--out", backup], fileSizeLimitBytes: 32 * 1024)
        #expect(result.status == 1, "\(result.output)")
        #expect(result.output.contains("no room to write \(backup) (its disk is full"), "\(result.output)")
        #expect(result.output.split(separator: "\n").count == 1, "\(result.output)")

        let good = fixture.directory.path("good.sqlite")
        #expect(try runCLI(["backup", "--config", fixture.configPath, "--out", good]).status == 0)
        let restore = try runCLI(["restore", good, "--config", fixture.configPath], fileSizeLimitBytes: 32 * 1024)
        #expect(restore.status == 1, "\(restore.output)")
        #expect(restore.output.contains("no room to write"), "\(restore.output)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.databasePath)) == original)
        let left = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.url.path)
        #expect(
            !left.contains { $0.hasPrefix("b.sqlite") || $0.contains(".restoring") || $0.contains("before-restore") },
            "\(left)")
    }

    @Test func aBackupFromANewerBuildIsRefused() throws {
        let fixture = try Self.fixture(storing: 0)
        let backup = fixture.directory.path("b.sqlite")
        #expect(try runCLI(["backup", "--config", fixture.configPath, "--out", backup]).status == 0)
        let bumped = try DeploymentFilesTests.run(
            "/usr/bin/python3",
            [
                "-c",
                "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                    + "c.execute(\"INSERT INTO schema_migrations VALUES (9999, 'later')\"); c.commit()", backup,
            ])
        #expect(bumped.0 == 0, "\(bumped.1)")
        let result = try runCLI(["restore", backup, "--config", fixture.configPath])
        #expect(result.status == 1 && result.output.contains("schema version 9999"), "\(result.output)")
    }

    @Test func postgresConfigurationsAreSentToPgDump() throws {
        let fixture = try ServerFixture(database: #""postgres://revenuedot@127.0.0.1:1/revenuedot""#)
        for arguments in [["backup", "--out", fixture.directory.path("x")], ["restore", fixture.directory.path("x")]] {
            let result = try runCLI(arguments + ["--config", fixture.configPath])
            #expect(result.status == 1, "\(result.output)")
            #expect(result.output.contains("use pg_dump and pg_restore"), "\(result.output)")
        }
        let usage = try runCLI(["backup", "--config", fixture.configPath])
        #expect(usage.status == 2 && usage.output.hasPrefix("revenuedot backup: backup needs --out FILE"))
    }
}
