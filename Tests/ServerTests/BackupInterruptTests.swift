import Foundation
import Testing

@testable import Server
@testable import Storage
@testable import Tools

/// What a backup stopped partway leaves, and what the next backup and a restore make of it.
@Suite struct BackupInterruptTests {
    /// A backup stopped by SIGTERM removes its unfinished copy and ends as the signal ends a
    /// process; the next backup to that name is whole.
    @Test func aStoppedBackupRemovesItsUnfinishedCopy() throws {
        let fixture = try BackupRestoreTests.fixture(storing: 3)
        let backup = fixture.directory.path("b.sqlite")
        // Held exclusively, the database keeps the backup waiting (SQLite's busy timeout) with
        // its copy claimed.
        var holder: SQLiteConnection? = try SQLiteConnection(path: fixture.databasePath, role: .writer)
        try holder?.execute(script: "PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE")
        let (process, said) = try Self.start(["backup", "--out", backup, "--config", fixture.configPath])
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: backup + ".partial"), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        #expect(FileManager.default.fileExists(atPath: backup + ".partial"))
        // It says why in one line.
        let line = try Self.stop(process, said)
        #expect(
            line == "revenuedot backup: stopped by a signal; \(backup).partial, its unfinished copy, is removed\n",
            "\(line)")
        let left = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.url.path)
        #expect(!left.contains { $0.hasPrefix("b.sqlite") }, "\(left)")
        try holder?.execute(script: "COMMIT; PRAGMA locking_mode = NORMAL")
        holder = nil

        let made = try runCLI(["backup", "--out", backup, "--config", fixture.configPath])
        #expect(made.status == 0, "\(made.output)")
        #expect(try BackupRestoreTests.notificationCount(backup) == 3)
    }

    /// A backup killed before SQLite wrote the copy's first page leaves zeros and a journal: the
    /// next backup to that name takes it over, and restore refuses it in one line. Zeros with no
    /// journal beside them are not a backup's, and are left alone.
    @Test func aKilledBackupsCopyIsTakenOverAndNeverRestored() throws {
        let fixture = try BackupRestoreTests.fixture(storing: 1)
        let original = try Data(contentsOf: URL(fileURLWithPath: fixture.databasePath))
        let zeros = Data(repeating: 0, count: 8192)
        let partial = fixture.directory.path("k.sqlite.partial")
        try zeros.write(to: URL(fileURLWithPath: partial))
        try Data(repeating: 7, count: 512).write(to: URL(fileURLWithPath: partial + "-journal"))

        // Restore refuses it by its name, and any file with a journal beside it.
        let journaled = fixture.directory.path("j.sqlite")
        try zeros.write(to: URL(fileURLWithPath: journaled))
        try Data(repeating: 7, count: 512).write(to: URL(fileURLWithPath: journaled + "-journal"))
        for (file, reason) in [
            (partial, "is a backup's unfinished copy"), (journaled, "is not a usable backup: the journal beside it"),
        ] {
            let restored = try runCLI(["restore", file, "--config", fixture.configPath])
            #expect(restored.status == 1, "\(restored.output)")
            #expect(restored.output.contains("\(file) \(reason)"), "\(restored.output)")
            #expect(restored.output.split(separator: "\n").count == 1, "\(restored.output)")
        }
        try BackupRestoreTests.expectRestoreChangedNothing(fixture, database: original)

        let taken = try runCLI(["backup", "--out", fixture.directory.path("k.sqlite"), "--config", fixture.configPath])
        #expect(taken.status == 0, "\(taken.output)")
        #expect(try BackupRestoreTests.notificationCount(fixture.directory.path("k.sqlite")) == 1)
        #expect(!FileManager.default.fileExists(atPath: partial) && !FileManager.default.fileExists(atPath: partial + "-journal"))

        let other = fixture.directory.path("z.sqlite.partial")
        try zeros.write(to: URL(fileURLWithPath: other))
        let refused = try runCLI(["backup", "--out", fixture.directory.path("z.sqlite"), "--config", fixture.configPath])
        #expect(refused.status == 1 && refused.output.contains("is not a backup's unfinished copy"), "\(refused.output)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: other)) == zeros)
    }

    /// A replay stopped by SIGTERM says in one line that its rebuild, one transaction, is rolled
    /// back, and ends as the signal ends a process; the database is as it was.
    @Test func aStoppedReplaySaysItChangedNothing() throws {
        let fixture = try BackupRestoreTests.fixture(storing: 3)
        let before = try BackupRestoreTests.notificationCount(fixture.databasePath)
        // Held exclusively, the database keeps the replay waiting (SQLite's busy timeout).
        var holder: SQLiteConnection? = try SQLiteConnection(path: fixture.databasePath, role: .writer)
        try holder?.execute(script: "PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE")
        let (process, said) = try Self.start(["replay", "--config", fixture.configPath])
        let line = try Self.stop(process, said)
        #expect(
            line
                == "revenuedot replay: stopped by a signal; the rebuild is rolled back: state, events and timers are as they were\n",
            "\(line)")
        try holder?.execute(script: "COMMIT; PRAGMA locking_mode = NORMAL")
        holder = nil
        #expect(try BackupRestoreTests.notificationCount(fixture.databasePath) == before)
    }

    /// `revenuedot ARGUMENTS` started, its standard error piped.
    static func start(_ arguments: [String]) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = ChildServer.executable
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        let said = Pipe()
        process.standardError = said
        try process.run()
        return (process, said)
    }

    /// Sends SIGTERM once the process's handler is in place (it says it catches the signal),
    /// expects it to end by that signal, and returns what it said.
    static func stop(_ process: Process, _ said: Pipe) throws -> String {
        #expect(poll(seconds: 4) { Self.catches(SIGTERM, pid: process.processIdentifier) })
        process.terminate()
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGTERM)
        return String(decoding: said.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }

    /// Whether process `pid` has a handler for `signal` (`SigCgt` in its `/proc` status).
    static func catches(_ signal: Int32, pid: Int32) -> Bool {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigCgt:") }),
            let mask = UInt64(line.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16)
        else { return false }
        return mask & (1 << UInt64(signal - 1)) != 0
    }
}
