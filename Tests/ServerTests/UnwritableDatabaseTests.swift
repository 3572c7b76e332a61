import Foundation
import Testing

@testable import Server

/// A database file the service's user may read but not write (a backup copied in as root, say)
/// is refused by `check-config` and by `serve`, with one line: SQLite would open it read-only
/// without a word, and the server answered its health check until the first notification got 503.
@Suite(.enabled(if: geteuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs root"))
struct UnwritableDatabaseTests {
    /// An unprivileged user (Debian's `nobody`).
    static let user: uid_t = 65534

    @Test func checkConfigAndServeRefuseADatabaseThisUserCannotWrite() throws {
        let fixture = try ServerFixture()
        try fixture.startService().shutdown()
        let directory = fixture.directory.url.path
        // The service's user owns its directory, its configuration and its certificates, and may
        // run a copy of the binary; the database stays root's, readable by all.
        let binary = fixture.directory.path("revenuedot")
        try FileManager.default.copyItem(atPath: ChildServer.executable.path, toPath: binary)
        for name in try FileManager.default.contentsOfDirectory(atPath: directory) where !name.hasPrefix("revenuedot.sqlite") {
            #expect(chown(fixture.directory.path(name), Self.user, gid_t(Self.user)) == 0)
        }
        #expect(chown(directory, Self.user, gid_t(Self.user)) == 0)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: fixture.databasePath + suffix) }
        #expect(chmod(fixture.databasePath, 0o644) == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: fixture.databasePath))

        let asUser = ["/usr/bin/setpriv", "--reuid=\(Self.user)", "--regid=\(Self.user)", "--clear-groups", binary]
        let lock = fixture.databasePath + ".lock"
        let locked = try runProcess("/usr/bin/timeout", ["20"] + asUser + ["check-config", "--config", fixture.configPath])
        #expect(locked.status == 1 && locked.output.contains("\(lock) cannot be written by this user"), "\(locked.output)")
        #expect(chown(lock, Self.user, gid_t(Self.user)) == 0)

        let check = try runProcess("/usr/bin/timeout", ["20"] + asUser + ["check-config", "--config", fixture.configPath])
        #expect(check.status == 1, "\(check.output)")
        #expect(check.output.contains("\(fixture.databasePath) cannot be written by this user"), "\(check.output)")
        #expect(check.output.split(separator: "\n").count == 1, "\(check.output)")

        // serve stops at start, before it listens (a server that ran on would be ended by timeout: 124).
        let serve = try runProcess("/usr/bin/timeout", ["20"] + asUser + ["serve", "--config", fixture.configPath])
        #expect(serve.status == 1, "\(serve.output)")
        #expect(serve.output.contains("cannot be written by this user"), "\(serve.output)")
        #expect(!serve.output.contains("listening on"), "\(serve.output)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.databasePath)) == before)
    }
}
