import Foundation
import LoopbackClient
import Synchronization
import Testing
import Threads

@testable import Server
@testable import Storage
@testable import Tools

/// A real `revenuedot serve` process under load: SIGKILL must lose nothing answered 200, and
/// SIGTERM must finish what is in flight and exit 0.
@Suite("Crash and shutdown", .serialized)
struct CrashAndShutdownTests {
    /// Posts unique notifications from `connections` threads until `stop` is set or the server
    /// goes away; returns the UUIDs that were answered 200.
    static func load(port: UInt16, payloads: [(uuid: String, jws: String)], connections: Int, answered: Locked<[String]>) {
        runOnThreads(connections) { worker in
            guard let connection = try? LoopbackConnection(port: port, timeoutSeconds: 10) else { return }
            for index in stride(from: worker, to: payloads.count, by: connections) {
                guard let response = try? connection.postNotification(payloads[index].jws) else { return }
                if response.status == 200 { answered.withLock { $0.append(payloads[index].uuid) } }
            }
        }
    }

    static func payloads(_ count: Int) throws -> [(uuid: String, jws: String)] {
        try (0..<count).map { _ in
            let uuid = UUID().uuidString.lowercased()
            return (uuid, try SignedNotifications.shared.notification(uuid: uuid))
        }
    }

    /// Waits until `count` answers came back; fails (instead of waiting forever) when the child
    /// exits first or 60 seconds pass.
    static func waitUntil(_ answered: Locked<[String]>, reach count: Int, orChildExits child: ChildServer) throws {
        let deadline = Date().addingTimeInterval(60)
        while answered.value.count < count {
            guard child.process.isRunning, Date() < deadline else {
                child.kill(SIGKILL)
                throw ChildServerError(output: "only \(answered.value.count) answers before the server stopped or time ran out")
            }
            Thread.sleep(forTimeInterval: 0.005)
        }
    }

    static func storedUUIDs(_ path: String) throws -> [String] {
        let store = try Store(path: path)
        defer { store.close() }
        var filter = NotificationFilter()
        filter.limit = 100_000
        return try store.notifications(filter).map(\.notificationUUID)
    }

    /// Starts a child server on a fresh database, loads it from 8 connections, and once 300
    /// notifications were answered 200 sends `signal`; returns the fixture, the child's exit
    /// status and the UUIDs that were answered 200.
    static func interruptUnderLoad(with signal: Int32) throws -> (
        ServerFixture, status: Int32, acknowledged: [String], posted: Int
    ) {
        let fixture = try ServerFixture()
        let payloads = try Self.payloads(1500)
        let answered = Locked<[String]>([])
        let child = try ChildServer(configPath: fixture.configPath)
        let loader = Thread { Self.load(port: child.port, payloads: payloads, connections: 8, answered: answered) }
        loader.start()
        try Self.waitUntil(answered, reach: 300, orChildExits: child)
        child.kill(signal)
        let status = child.wait()
        poll(seconds: 60) { loader.isFinished }
        return (fixture, status, answered.value, payloads.count)
    }

    @Test func sigkillDuringLoadLosesNothingAnswered200() throws {
        let (fixture, _, acknowledged, posted) = try Self.interruptUnderLoad(with: SIGKILL)
        #expect(acknowledged.count >= 300)
        #expect(acknowledged.count < posted, "the kill landed after the load finished")
        // The server had reserved the WAL (65 MiB, `WALReserve`): recovery reads its frames and
        // stops at the zeros after them.
        let wal = try FileManager.default.attributesOfItem(atPath: fixture.databasePath + "-wal")[.size] as? Int
        #expect(wal == 65 << 20)

        // Restart on the same database: everything answered 200 is there, once.
        let restarted = try ChildServer(configPath: fixture.configPath)
        restarted.kill(SIGTERM)
        #expect(restarted.wait() == 0)
        let stored = try Self.storedUUIDs(fixture.databasePath)
        #expect(Set(stored).count == stored.count)
        #expect(Set(acknowledged).isSubset(of: Set(stored)))
    }

    @Test func sigtermDuringLoadFinishesInFlightAndExitsZero() throws {
        let (fixture, status, acknowledged, _) = try Self.interruptUnderLoad(with: SIGTERM)
        #expect(status == 0)
        let stored = try Self.storedUUIDs(fixture.databasePath)
        #expect(Set(acknowledged).isSubset(of: Set(stored)))
        #expect(Set(stored).count == stored.count)
    }
}
