import Foundation
import Testing

@testable import Storage

/// A PostgreSQL database that restarts under a running store: writes and reads fail meanwhile
/// (the server answers 503 and Apple retries), and work again afterwards without reopening the
/// store; nothing answered as stored is lost. On a cluster of its own
/// (`scripts/postgres-cluster.sh`), since the shared one must stay up for the other tests.
@Suite(.enabled(if: PostgresTestDatabase.isAvailable)) struct DatabaseRestartTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts/postgres-cluster.sh").path

    /// Runs the cluster script. Its output is not read through a pipe: the server it starts
    /// would hold the pipe open.
    static func cluster(_ command: String, _ directory: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        process.arguments = [command, directory]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "postgres-cluster.sh \(command) failed")
    }

    /// The started cluster's URL, from the files the script keeps beside it.
    static func url(_ directory: String) throws -> PostgresURL {
        func read(_ name: String) throws -> String {
            try String(contentsOfFile: directory + "/" + name, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return try PostgresURL(
            "postgres://revenuedot:\(try read("password"))@127.0.0.1:\(try read("port"))/postgres", environment: [:])
    }

    @Test func aRestartedDatabaseIsReconnectedToAndNothingStoredIsLost() throws {
        let directory = "/tmp/revenuedot-restart-\(UUID().uuidString)"
        defer { _ = try? Self.cluster("destroy", directory) }
        try Self.cluster("start", directory)
        let server = try Self.url(directory)
        try PostgresDatabases.create("rd_restart", on: server)
        let store = try Store(postgres: server.with(database: "rd_restart"))
        defer { store.close() }
        let before = (0..<5).map { "before-\($0)" }
        for uuid in before { #expect(try store.store(makeRecord(uuid)) == .stored) }

        try Self.cluster("stop", directory)
        for _ in 0..<2 {
            let refused = #expect(throws: StoreError.self) { try store.store(makeRecord("while-down")) }
            #expect(refused?.code == .unavailable, "\(refused?.message ?? "")")
        }
        #expect(throws: StoreError.self) { try store.healthCheck() }
        #expect(throws: StoreError.self) { try store.notification(uuid: "before-0") }

        try Self.cluster("start", directory)
        // The same store, not reopened: its connections were dropped, and are made again.
        try store.healthCheck()
        #expect(try store.notification(uuid: "before-1")?.notificationUUID == "before-1")
        // The same store, not reopened: Apple's retry of the refused one is stored now.
        #expect(try store.store(makeRecord("while-down")) == .stored)
        #expect(try store.store(makeRecord("after")) == .stored)
        try store.healthCheck()
        for uuid in before + ["while-down", "after"] {
            #expect(try store.notification(uuid: uuid)?.notificationUUID == uuid)
        }

        // Restarted while idle: the first write and read after it find their connection gone
        // and make a new one, without failing.
        try Self.cluster("stop", directory)
        try Self.cluster("start", directory)
        #expect(try store.store(makeRecord("after-idle-restart")) == .stored)
        #expect(try store.notification(uuid: "after-idle-restart") != nil)
    }
}
