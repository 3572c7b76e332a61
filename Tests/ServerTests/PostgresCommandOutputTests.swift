import Foundation
import Testing

@testable import Storage

/// What a command prints about a PostgreSQL database is RevenueDot's own lines: libpq's words
/// come only inside them, as one line, and libpq prints nothing of its own.
@Suite(.enabled(if: TestCluster.url != nil))
struct PostgresCommandOutputTests {
    /// `check-config` with a wrong password in a password file: one line naming the database once,
    /// with libpq's reason and no escaped line break.
    @Test func aWrongPasswordIsOneCleanLine() throws {
        try PostgresServeTests.withDatabase { url in
            let fixture = try ServerFixture(
                database: #"{"url": "\#(url.description)", "passwordFile": "\#(try passwordFile())"}"#)
            let run = try Self.run(["check-config", "--config", fixture.configPath])
            #expect(run.status == 1)
            #expect(run.standardOutput.isEmpty)
            let lines = run.standardError.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count == 2 && lines.last == "", "\(run.standardError)")
            #expect(run.standardError.contains("password authentication failed"), "\(run.standardError)")
            #expect(!run.standardError.contains(#"\u{"#), "\(run.standardError)")
            #expect(run.standardError.components(separatedBy: url.description).count == 2, "\(run.standardError)")
            #expect(!run.standardError.contains(url.password ?? "-"))
        }
    }

    /// With no password anywhere, libpq is told of no password file it could warn about (it warns
    /// on standard error about one that is not a regular file).
    @Test func noPasswordPrintsNoLibpqWarning() throws {
        try PostgresServeTests.withDatabase { url in
            let fixture = try ServerFixture(database: "\"\(url.description)\"")
            let run = try Self.run(["check-config", "--config", fixture.configPath])
            #expect(run.status == 1)
            #expect(Self.libpqLines(run.standardError).isEmpty, "\(run.standardError)")
            #expect(run.standardError.contains("no password supplied"), "\(run.standardError)")
        }
    }

    /// A warning the server sends as a session starts (here, a database setting it rejects) goes
    /// to libpq's notice processor, which must not print it.
    @Test func aWarningAtSessionStartIsNotPrinted() throws {
        try PostgresServeTests.withDatabase { url in
            let cluster = try #require(TestCluster.url)
            try PostgresConnection(url: cluster).execute(
                script: "ALTER DATABASE \(url.database) SET default_tablespace = 'rd_absent'")
            let fixture = try ServerFixture(database: "\"\(PostgresCommandsTests.withPassword(url))\"")
            let run = try Self.run(["check-config", "--config", fixture.configPath])
            #expect(run.status == 0, "\(run.standardError)")
            #expect(run.standardError.isEmpty)
            #expect(Self.libpqLines(run.standardOutput).isEmpty, "\(run.standardOutput)")
        }
    }

    /// The lines of `output` that libpq printed itself: a server's notice, or its own warning.
    static func libpqLines(_ output: String) -> [Substring] {
        output.split(separator: "\n").filter { line in
            ["WARNING:", "FATAL:", "ERROR:", "NOTICE:", "DETAIL:"].contains { line.hasPrefix($0) }
        }
    }

    /// A file holding a password that is not the cluster's.
    private func passwordFile() throws -> String {
        try TestDirectory("revenuedot-pg-password").write("password", "wrong-\(UUID().uuidString)\n")
    }

    /// Runs the built executable with `arguments`, without PGPASSWORD or PGPASSFILE in its
    /// environment; its status, standard output and standard error apart.
    static func run(_ arguments: [String]) throws -> (status: Int32, standardOutput: String, standardError: String) {
        let process = Process()
        process.executableURL = ChildServer.executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.filter { $0.key != "PGPASSWORD" && $0.key != "PGPASSFILE" }
        let directory = TestDirectory("revenuedot-pg-output")
        let outPath = try directory.write("out", "")
        let errorPath = try directory.write("error", "")
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        try process.run()
        process.waitUntilExit()
        return (
            process.terminationStatus, try String(contentsOfFile: outPath, encoding: .utf8),
            try String(contentsOfFile: errorPath, encoding: .utf8)
        )
    }
}
