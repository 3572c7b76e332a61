import Foundation
import Testing

@testable import Server

/// A database the service's user may read but not write (a backup copied in as root, say), or
/// whose WAL or lock file it may not write, is refused by `check-config` and by `serve` in one
/// line: SQLite opens such files read-only without a word and fails only at the first commit.
@Suite(.enabled(if: UnprivilegedUser.canRunAsUser, "needs root, setpriv, and a binary the user may run"))
struct UnwritableDatabaseTests {
    static let user = UnprivilegedUser.user
    static let asUser = UnprivilegedUser.asUser

    /// Runs the copied binary as `user` (ended after 20 s: a server that ran on gives 124).
    func run(_ binary: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        try runProcess("/usr/bin/timeout", ["20"] + Self.asUser + [binary] + arguments)
    }

    /// A database this user may not read at all: the commands that read it say so, not SQLite's
    /// "unable to open database file".
    @Test func aDatabaseThisUserCannotReadIsSaidSo() throws {
        let fixture = try ServerFixture()
        try fixture.startService().shutdown()
        let binary = fixture.directory.path("revenuedot")
        try FileManager.default.copyItem(atPath: ChildServer.executable.path, toPath: binary)
        for name in try FileManager.default.contentsOfDirectory(atPath: fixture.directory.url.path) {
            #expect(chown(fixture.directory.path(name), Self.user, gid_t(Self.user)) == 0)
        }
        #expect(chown(fixture.directory.url.path, Self.user, gid_t(Self.user)) == 0)
        #expect(chown(fixture.databasePath, 0, 0) == 0 && chmod(fixture.databasePath, 0o600) == 0)
        for arguments in [["notifications", "list"], ["events", "list"]] {
            let refused = try run(binary, arguments + ["--config", fixture.configPath])
            #expect(refused.status == 1, "\(arguments): \(refused.output)")
            #expect(
                refused.output.contains("\(fixture.databasePath) cannot be read by this user: check its owner and mode"),
                "\(arguments): \(refused.output)")
        }
    }

    /// A database this user may read in a folder it may not write (a read-only mount, say),
    /// with no shared-memory file left beside it: SQLite cannot read a WAL database without
    /// making one, and the commands say that, not "unable to open database file".
    @Test func aFolderWhereTheSharedMemoryFileCannotBeMadeIsSaidSo() throws {
        let fixture = try ServerFixture()
        try fixture.startService().shutdown()
        let binary = fixture.directory.path("revenuedot")
        try FileManager.default.copyItem(atPath: ChildServer.executable.path, toPath: binary)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: fixture.databasePath + suffix) }
        for name in try FileManager.default.contentsOfDirectory(atPath: fixture.directory.url.path)
        where !name.hasPrefix("revenuedot.sqlite") {
            #expect(chown(fixture.directory.path(name), Self.user, gid_t(Self.user)) == 0)
        }
        #expect(chmod(fixture.databasePath, 0o644) == 0 && chmod(fixture.directory.url.path, 0o755) == 0)
        for arguments in [["events", "list"], ["notifications", "list"]] {
            let refused = try run(binary, arguments + ["--config", fixture.configPath])
            #expect(refused.status == 1, "\(arguments): \(refused.output)")
            #expect(
                refused.output.contains("does not let this user make \(fixture.databasePath)-shm"),
                "\(arguments): \(refused.output)")
            #expect(!refused.output.contains("PRAGMA"), "\(arguments): \(refused.output)")
        }
    }

    @Test func checkConfigAndServeRefuseFilesThisUserCannotWrite() throws {
        let fixture = try ServerFixture()
        try fixture.startService().shutdown()
        let directory = fixture.directory.url.path
        // The service's user owns its directory, its configuration and its certificates, and may
        // run a copy of the binary; the database and its lock stay root's, readable by all.
        let binary = fixture.directory.path("revenuedot")
        try FileManager.default.copyItem(atPath: ChildServer.executable.path, toPath: binary)
        for name in try FileManager.default.contentsOfDirectory(atPath: directory)
        where !name.hasPrefix("revenuedot.sqlite") {
            #expect(chown(fixture.directory.path(name), Self.user, gid_t(Self.user)) == 0)
        }
        #expect(chown(directory, Self.user, gid_t(Self.user)) == 0)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: fixture.databasePath + suffix) }
        #expect(chmod(fixture.databasePath, 0o644) == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: fixture.databasePath))

        let lock = fixture.databasePath + ".lock"
        let locked = try run(binary, ["check-config", "--config", fixture.configPath])
        #expect(locked.status == 1 && locked.output.contains("\(lock) cannot be written by this user"), "\(locked.output)")
        #expect(chown(lock, Self.user, gid_t(Self.user)) == 0)

        let check = try run(binary, ["check-config", "--config", fixture.configPath])
        #expect(check.status == 1, "\(check.output)")
        #expect(check.output.contains("\(fixture.databasePath) cannot be written by this user"), "\(check.output)")
        #expect(check.output.split(separator: "\n").count == 1, "\(check.output)")
        // serve stops at start, before it listens.
        let serve = try run(binary, ["serve", "--config", fixture.configPath])
        #expect(serve.status == 1, "\(serve.output)")
        #expect(serve.output.contains("cannot be written by this user"), "\(serve.output)")
        #expect(!serve.output.contains("listening on"), "\(serve.output)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.databasePath)) == before)

        // The database is the user's now, but a WAL file left by root is not: refused by both.
        #expect(chown(fixture.databasePath, Self.user, gid_t(Self.user)) == 0)
        let wal = fixture.databasePath + "-wal"
        #expect(FileManager.default.createFile(atPath: wal, contents: Data(), attributes: [.posixPermissions: 0o644]))
        for arguments in [["check-config"], ["serve"]] {
            let refused = try run(binary, arguments + ["--config", fixture.configPath])
            #expect(refused.status == 1 && refused.output.contains("\(wal) cannot be written by this user"), "\(refused.output)")
        }
    }
}

/// An unprivileged user (Debian's `nobody`), and how to run a command as it.
enum UnprivilegedUser {
    static let user: uid_t = 65534
    static let asUser = ["/usr/bin/setpriv", "--reuid=\(user)", "--regid=\(user)", "--clear-groups"]

    /// Whether a copy of the binary runs as `user` here: root, setpriv, a mapped user, and the
    /// Swift runtime the debug build links where that user can read it.
    static let canRunAsUser: Bool = {
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { return false }
        let directory = TestDirectory("runs-as-user")
        let binary = directory.path("revenuedot")
        guard (try? FileManager.default.copyItem(atPath: ChildServer.executable.path, toPath: binary)) != nil,
            chmod(directory.url.path, 0o755) == 0
        else { return false }
        return (try? runProcess("/usr/bin/timeout", ["20"] + asUser + [binary, "--version"]))?.status == 0
    }()
}
