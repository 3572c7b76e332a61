import Foundation
import Storage

/// A PostgreSQL cluster of a test's own (`scripts/postgres-cluster.sh`), for tests that stop and
/// start the database under RevenueDot: the shared cluster `make test` starts must stay up for
/// the other tests. Destroyed when this goes away.
public final class PrivateCluster: Sendable {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/postgres-cluster.sh").path

    public let directory = "/tmp/revenuedot-cluster-\(UUID().uuidString)"

    /// Starts it; serving TLS with a certificate for 127.0.0.1 from a test CA (`caPath`) when `tls`.
    public init(tls: Bool = false) throws {
        try run("start", environment: tls ? ["POSTGRES_CLUSTER_SSL": "1"] : [:])
    }

    /// The test CA that signed the server's certificate, for a cluster made with `tls`.
    public var caPath: String { directory + "/ca.crt" }

    deinit { try? run("destroy") }

    /// Stops the server (a fast shutdown: sessions are ended), keeping the data.
    public func stop() throws { try run("stop") }

    /// Starts the server again on the same data and port.
    public func start() throws { try run("start") }

    /// The URL of database `name` on it, with the password the script made.
    public func url(database name: String = "postgres") throws -> PostgresURL {
        func read(_ file: String) throws -> String {
            try String(contentsOfFile: directory + "/" + file, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return try PostgresURL(
            "postgres://revenuedot:\(try read("password"))@127.0.0.1:\(try read("port"))/\(name)", environment: [:])
    }

    /// Runs the script. Its output is not read through a pipe: the server it starts would hold
    /// the pipe open.
    private func run(_ command: String, environment: [String: String] = [:]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.script)
        process.arguments = [command, directory]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ClusterError(command: command, status: process.terminationStatus) }
    }

    struct ClusterError: Error, CustomStringConvertible {
        let command: String
        let status: Int32
        var description: String { "scripts/postgres-cluster.sh \(command) failed with status \(status)" }
    }
}
