import Foundation
import PostgresFixtures
import Testing

@testable import Storage

/// A PostgreSQL database that restarts under a running store: writes and reads fail meanwhile
/// (the server answers 503 and Apple retries), and work again afterwards without reopening the
/// store; nothing answered as stored is lost. On a cluster of its own (`PrivateCluster`).
@Suite(.enabled(if: PostgresTestDatabase.isAvailable)) struct DatabaseRestartTests {
    @Test func aRestartedDatabaseIsReconnectedToAndNothingStoredIsLost() throws {
        let cluster = try PrivateCluster()
        let server = try cluster.url()
        try PostgresDatabases.create("rd_restart", on: server)
        let store = try Store(postgres: server.with(database: "rd_restart"))
        defer { store.close() }
        let before = (0..<5).map { "before-\($0)" }
        for uuid in before { #expect(try store.store(makeRecord(uuid)) == .stored) }

        try cluster.stop()
        for _ in 0..<2 {
            let refused = #expect(throws: StoreError.self) { try store.store(makeRecord("while-down")) }
            #expect(refused?.code == .unavailable, "\(refused?.message ?? "")")
        }
        #expect(throws: StoreError.self) { try store.healthCheck() }
        #expect(throws: StoreError.self) { try store.notification(uuid: "before-0") }

        try cluster.start()
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
        try cluster.stop()
        try cluster.start()
        #expect(try store.store(makeRecord("after-idle-restart")) == .stored)
        #expect(try store.notification(uuid: "after-idle-restart") != nil)
    }
}
