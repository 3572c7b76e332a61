import Foundation
import LoopbackClient
import Testing

@testable import Server
@testable import Tools

/// `revenuedot serve` with a configuration that loads but cannot be served: one `start.failed`
/// line, in the default text log format too, that names the key to fix, and exit 1.
@Suite("revenuedot serve start failures")
struct ServeStartTests {
    let fixture: ServerFixture

    init() throws {
        fixture = try ServerFixture()
    }

    /// The fixture's configuration with `listen` and `database` replaced.
    func config(listen: String, database: String? = nil) throws -> String {
        var text = try String(contentsOfFile: fixture.configPath, encoding: .utf8)
        text = text.replacingOccurrences(of: #""listen": "127.0.0.1:0""#, with: #""listen": "\#(listen)""#)
        if let database {
            text = text.replacingOccurrences(of: "sqlite:\(fixture.databasePath)", with: database)
        }
        return try fixture.directory.write("start-\(UUID()).json", text)
    }

    func serve(_ path: String) throws -> (status: Int32, line: String) {
        let result = try runCLI(["serve", "--config", path])
        return (result.status, result.output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func anAddressInUseNamesListen() throws {
        let service = try fixture.startService()
        defer { service.shutdown() }
        let path = try config(listen: "127.0.0.1:\(service.port)", database: "sqlite:" + fixture.directory.path("other.sqlite"))
        let (status, line) = try serve(path)
        #expect(status == 1)
        let message = try #require(startFailedMessage(line), "not one start.failed line: \(line)")
        #expect(message.hasPrefix("config \(path): listen: Could not listen on 127.0.0.1:\(service.port)"), "\(line)")
        #expect(message.hasSuffix("Address already in use"), "\(line)")
        #expect(!line.contains("HTTPServerError"))
        // Refused before storage opens: no database was created (or, in an upgrade, migrated).
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.path("other.sqlite")))
    }

    @Test func aDatabaseThatCannotBeOpenedNamesDatabase() throws {
        let missing = fixture.directory.path("no-such-directory/revenuedot.sqlite")
        let path = try config(listen: "127.0.0.1:0", database: "sqlite:" + missing)
        let (status, line) = try serve(path)
        #expect(status == 1)
        let message = try #require(startFailedMessage(line), "not one start.failed line: \(line)")
        #expect(message.hasPrefix("config \(path): database: cannot open \(missing): "), "\(line)")
    }

    /// A WAL that cannot get its full size at start (a full disk; here a file size limit) is
    /// a warning, not a failure: the server says so, serves, and stores.
    @Test func aWALThatCannotBeReservedIsAWarning() throws {
        let child = try ChildServer(configPath: fixture.configPath, fileSizeLimitKiB: 16 * 1024)
        #expect(
            child.startupOutput.contains("warning start.warning the WAL could not be given its full size at start"),
            "\(child.startupOutput)")
        #expect(child.startupOutput.contains("File too large"))
        let connection = try LoopbackConnection(port: child.port)
        #expect(try connection.postNotification(fixture.signer.notification()).status == 200)
        child.kill(SIGTERM)
        #expect(child.wait() == 0)

        let normal = try ChildServer(configPath: fixture.configPath)
        #expect(!normal.startupOutput.contains("the WAL could not"), "\(normal.startupOutput)")
        normal.kill(SIGTERM)
        #expect(normal.wait() == 0)
    }

    /// A start that finds no database makes an empty one and says so: the one sign of a wrong
    /// path or an unmounted volume on a restart. A start on the database it made says nothing of
    /// it (the fixture's short secret key is still warned of, at every start).
    @Test func aStartThatMakesTheDatabaseSaysSo() throws {
        let first = try ChildServer(configPath: fixture.configPath)
        #expect(
            first.startupOutput.contains(
                "warning start.warning no RevenueDot database was at \(fixture.databasePath), so an empty one was made"),
            "\(first.startupOutput)")
        first.kill(SIGTERM)
        #expect(first.wait() == 0)
        let again = try ChildServer(configPath: fixture.configPath)
        #expect(!again.startupOutput.contains("RevenueDot database was"), "\(again.startupOutput)")
        // What the configuration allows but should not (`ConfigWarnings`), at every start.
        #expect(
            again.startupOutput.contains("warning start.warning app \"demo\": secretApiKey is 14 characters"),
            "\(again.startupOutput)")
        #expect(
            again.startupOutput.contains(
                "warning start.warning app \"demo\" takes Production notifications signed under 1 root certificate(s) "
                    + "besides Apple's"),
            "\(again.startupOutput)")
        again.kill(SIGTERM)
        #expect(again.wait() == 0)
    }

    /// The start line names the node: `node.id` (else the host name), the process id and four
    /// random hex digits, so nodes that share one configuration file stay distinct.
    @Test func theStartLineNamesTheNode() throws {
        let fixture = try ServerFixture(extraHTTP: #", "node": {"id": "web-1"}"#)
        let child = try ChildServer(configPath: fixture.configPath)
        let pattern = "node web-1-\(child.process.processIdentifier)-[0-9a-f]{4}\\)"
        #expect(child.startupOutput.range(of: pattern, options: .regularExpression) != nil, "\(child.startupOutput)")
        child.kill(SIGTERM)
        #expect(child.wait() == 0)
    }
}
