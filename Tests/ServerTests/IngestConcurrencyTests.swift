import Foundation
import LoopbackClient
import Synchronization
import Testing
import Threads

@testable import Server
@testable import Storage
@testable import Tools

@Suite("Ingest under concurrent load")
struct IngestConcurrencyTests {
    @Test func thousandConcurrentPostsWithRepeatsStoreEachUniqueOnce() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        // 900 unique notifications; 100 posts repeat one of them (a retry racing the original).
        let unique = try (0..<900).map { _ in try fixture.signer.notification() }
        let posts = unique + (0..<100).map { unique[($0 * 7) % unique.count] }
        let statuses = Locked([Int](repeating: 0, count: posts.count))
        let connections = 32
        runOnThreads(connections) { worker in
            guard let connection = try? LoopbackConnection(port: service.port, timeoutSeconds: 10) else { return }
            for index in stride(from: worker, to: posts.count, by: connections) {
                // A server that stopped answering fails the test once per thread, not once per request.
                guard let status = try? connection.postNotification(posts[index]).status else { return }
                statuses.withLock { $0[index] = status }
            }
        }
        service.shutdown()
        #expect(statuses.value.allSatisfy { $0 == 200 })
        let store = try Store(path: fixture.databasePath)
        defer { store.close() }
        var filter = NotificationFilter()
        filter.limit = 10_000
        let records = try store.notifications(filter)
        #expect(records.count == 900)
        #expect(Set(records.map(\.notificationUUID)).count == 900)
    }

    @Test func idleConnectionsDoNotStopOthers() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        defer { service.shutdown() }
        var idle: [LoopbackConnection] = []
        for _ in 0..<500 { idle.append(try LoopbackConnection(port: service.port)) }
        let halfBody = try LoopbackConnection(port: service.port)
        try halfBody.sendRaw(
            Data("POST /v1/apple/notifications/demo HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n{\"signedPay".utf8))
        let started = Date()
        let connection = try LoopbackConnection(port: service.port)
        #expect(try connection.postNotification(try fixture.signer.notification()).status == 200)
        #expect(Date().timeIntervalSince(started) < 2)
        idle.forEach { $0.close() }
    }
}
