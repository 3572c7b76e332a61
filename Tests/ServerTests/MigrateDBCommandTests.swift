import Foundation
import LoopbackClient
import Testing

@testable import Server
@testable import Storage

/// `revenuedot migrate-db` as an operator runs it, on the built binary.
@Suite struct MigrateDBCommandTests {
    @Test(arguments: [
        (["migrate-db", "--to", "postgres://u@h/d"], "needs --from sqlite:PATH"),
        (["migrate-db", "--from", "x.sqlite", "--to", "postgres://u@h/d"], #"--from must be sqlite:PATH, not "x.sqlite""#),
        (["migrate-db", "--from", "sqlite:/x.sqlite"], "needs --to postgres://"),
        (["migrate-db", "--from", "sqlite:/x.sqlite", "--to", "mysql://u@h/d"], "--to: a PostgreSQL database is given as"),
        (["migrate-db", "--from", "sqlite:/nonexistent/x.sqlite", "--to", "postgres://u@h/d"], "does not exist"),
    ])
    func badArgumentsAreOneLine(arguments: [String], expected: String) throws {
        let (status, output) = try runCLI(arguments)
        #expect(status != 0)
        // One line saying what is wrong, then where the usage is.
        #expect(output.split(separator: "\n").first?.contains(expected) == true, "\(output)")
        if status == 2 { #expect(output.hasSuffix("(revenuedot migrate-db --help shows its usage)\n"), "\(output)") }
    }

    /// A password file others can read is refused, as serve refuses the configuration's, and so
    /// is one that does not exist: a file's problem (1), not the command line's (2).
    @Test func aPasswordFileOthersCanReadIsRefused() throws {
        let directory = TestDirectory("migrate-password")
        let file = try directory.write("pw", "secret\n")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        let (status, output) = try runCLI([
            "migrate-db", "--from", "sqlite:/nonexistent/x.sqlite", "--to", "postgres://u@h/d", "--password-file", file,
        ])
        #expect(status == 1)
        #expect(output.hasPrefix("revenuedot migrate-db: --password-file \(file) is readable by other users"), "\(output)")
        #expect(output.contains("run chmod 600 \(file)"), "\(output)")
        #expect(!output.contains("--help"), "\(output)")
        let missing = try runCLI([
            "migrate-db", "--from", "sqlite:/nonexistent/x.sqlite", "--to", "postgres://u@h/d", "--password-file",
            directory.path("none"),
        ])
        #expect(missing.status == 1, "\(missing.output)")
        #expect(missing.output.hasPrefix("revenuedot migrate-db: --password-file"), "\(missing.output)")
        #expect(missing.output.split(separator: "\n").count == 1, "\(missing.output)")
    }

    @Test(.enabled(if: TestCluster.url != nil))
    func aServersDatabaseIsCopiedAndServedFromPostgreSQL() throws {
        let fixture = try ServerFixture()
        let uuid = UUID().uuidString.lowercased()
        let payload = try fixture.signer.notification(uuid: uuid, originalTransactionId: "77")
        do {
            let service = try fixture.startService()
            defer { service.shutdown() }
            #expect(try LoopbackConnection(port: service.port).postNotification(payload).status == 200)
        }
        try PostgresServeTests.withDatabase { url in
            let target = "postgres://\(url.user):\(url.password ?? "")@\(url.host):\(url.port)/\(url.database)"
            // A node already serving the target: refused, nothing copied.
            do {
                let node = try Store(postgres: url)
                defer { node.close() }
                let (status, output) = try runCLI(["migrate-db", "--from", "sqlite:\(fixture.databasePath)", "--to", target])
                #expect(status == 1 && output.contains("in use by a running server or command: stop every node first"))
                #expect(try node.notification(uuid: uuid) == nil)
            }
            let (status, output) = try runCLI(["migrate-db", "--from", "sqlite:\(fixture.databasePath)", "--to", target])
            #expect(status == 0, "\(output)")
            #expect(output.contains("notifications: 1 rows"), "\(output)")
            #expect(!output.contains(url.password ?? "-"))
            let store = try Store(postgres: url)
            defer { store.close() }
            #expect(try store.notification(uuid: uuid)?.signedPayload == payload)
            #expect(try store.notification(uuid: uuid)?.state == .applied)
        }
    }
}
