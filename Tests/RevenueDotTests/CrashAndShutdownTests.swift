import Foundation
import LoopbackClient
import Storage
import Synchronization
import Testing

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

    static func storedUUIDs(_ path: String) throws -> [String] {
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        var filter = NotificationFilter()
        filter.limit = 100_000
        return try store.notifications(filter).map(\.notificationUUID)
    }

    @Test func sigkillDuringLoadLosesNothingAnswered200() throws {
        let fixture = try ServerFixture()
        let payloads = try Self.payloads(1500)
        let answered = Locked<[String]>([])
        let child = try ChildServer(configPath: fixture.configPath)
        let loader = Thread { Self.load(port: child.port, payloads: payloads, connections: 8, answered: answered) }
        loader.start()
        // Kill once a few hundred are in, mid-stream.
        while answered.withLock({ $0.count }) < 300 { Thread.sleep(forTimeInterval: 0.005) }
        child.kill(SIGKILL)
        _ = child.wait()
        while !loader.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        let acknowledged = answered.value
        #expect(acknowledged.count >= 300)
        #expect(acknowledged.count < payloads.count, "the kill landed after the load finished")

        // Restart on the same database: everything answered 200 is there, once.
        let restarted = try ChildServer(configPath: fixture.configPath)
        restarted.kill(SIGTERM)
        #expect(restarted.wait() == 0)
        let stored = try Self.storedUUIDs(fixture.databasePath)
        #expect(Set(stored).count == stored.count)
        #expect(Set(acknowledged).isSubset(of: Set(stored)))
    }

    @Test func sigtermDuringLoadFinishesInFlightAndExitsZero() throws {
        let fixture = try ServerFixture()
        let payloads = try Self.payloads(1500)
        let answered = Locked<[String]>([])
        let child = try ChildServer(configPath: fixture.configPath)
        let loader = Thread { Self.load(port: child.port, payloads: payloads, connections: 8, answered: answered) }
        loader.start()
        while answered.withLock({ $0.count }) < 300 { Thread.sleep(forTimeInterval: 0.005) }
        child.kill(SIGTERM)
        #expect(child.wait() == 0)
        while !loader.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        let acknowledged = answered.value
        let stored = try Self.storedUUIDs(fixture.databasePath)
        #expect(Set(acknowledged).isSubset(of: Set(stored)))
        #expect(Set(stored).count == stored.count)
    }
}
