import Foundation
import LoopbackClient
import PostgresFixtures
import Synchronization
import Testing
import Threads

@testable import Server
@testable import Storage

/// Three `revenuedot serve` processes on one PostgreSQL database that is stopped and started
/// again while notifications arrive: the nodes answer 503 while it is down (Apple retries),
/// `/health` fails, and they recover without a restart; every notification answered 200 is
/// stored once. On a cluster of the test's own (`PrivateCluster`).
@Suite(.enabled(if: TestCluster.url != nil))
struct PostgresRestartUnderLoadTests {
    @Test func theDatabaseRestartedMidLoadLosesNothingAndTheNodesRecoverByThemselves() throws {
        let cluster = try PrivateCluster()
        try PostgresDatabases.create("rd_load", on: try cluster.url())
        let url = try cluster.url(database: "rd_load")
        let fixture = try ServerFixture(database: "\"\(PostgresCommandsTests.withPassword(url))\"")
        let nodes = try (0..<3).map { _ in try ChildServer(configPath: fixture.configPath) }
        defer { nodes.forEach { if $0.process.isRunning { $0.kill(SIGKILL) } } }
        let payloads = try (0..<160).map { index in
            let uuid = UUID().uuidString.lowercased()
            return (uuid, try fixture.signer.notification(uuid: uuid, originalTransactionId: "\(9_100_000_000 + index)"))
        }

        let answered = Mutex<Set<String>>([])
        let refusals = Mutex<[Int]>([])
        let healthWhileDown = Mutex<Int?>(nil)
        let metricsWhileDown = Mutex<String>("")
        // Four posters, one post each 30 ms, round-robin over the nodes; a post not answered 200
        // goes to the next node 50 ms later, as Apple retries (sooner). A fifth thread stops the
        // database once a quarter is answered, and starts it again a second later.
        runOnThreads(5) { thread in
            guard thread < 4 else {
                while answered.withLock({ $0.count }) < payloads.count / 4 { usleep(5_000) }
                do {
                    try cluster.stop()
                    healthWhileDown.withLock {
                        $0 = (try? LoopbackConnection(port: nodes[0].port).request("GET", "/health"))?.status
                    }
                    let metrics = (try? LoopbackConnection(port: nodes[1].port).request("GET", "/metrics"))?.body
                    metricsWhileDown.withLock { $0 = metrics.map { String(decoding: $0, as: UTF8.self) } ?? "" }
                    sleep(1)
                    try cluster.start()
                } catch {
                    Issue.record("restarting the database: \(error)")
                }
                return
            }
            for index in stride(from: thread, to: payloads.count, by: 4) {
                let (uuid, jws) = payloads[index]
                let deadline = Date().addingTimeInterval(60)
                var attempt = 0
                while Date() < deadline {
                    let node = nodes[(index + attempt) % nodes.count]
                    attempt += 1
                    let status = (try? LoopbackConnection(port: node.port).postNotification(jws))?.status ?? -1
                    if status == 200 {
                        answered.withLock { _ = $0.insert(uuid) }
                        break
                    }
                    refusals.withLock { $0.append(status) }
                    usleep(50_000)
                }
                usleep(30_000)
            }
        }

        #expect(answered.withLock { $0.count } == payloads.count)
        let refused = refusals.withLock { $0 }
        #expect(!refused.isEmpty, "the database went down while no notification was posted")
        #expect(refused.allSatisfy { $0 == 503 }, "\(refused)")
        #expect(healthWhileDown.withLock { $0 } == 503)
        // The gauges read from storage are missing while it is down, and a gauge says why.
        let down = metricsWhileDown.withLock { $0 }
        #expect(down.contains("revenuedot_storage_readable 0\n"), "\(down.prefix(300))")
        #expect(!down.contains("revenuedot_webhook_pending"))
        #expect(nodes.allSatisfy { $0.process.isRunning })
        // The server's FATAL to the sessions it ended as it stopped reached no node's output.
        for node in nodes {
            #expect(PostgresCommandOutputTests.libpqLines(node.allOutput).isEmpty, "\(node.allOutput.suffix(2000))")
        }
        for node in nodes { #expect(try LoopbackConnection(port: node.port).request("GET", "/health").status == 200) }
        let store = try Store(postgres: url)
        defer { store.close() }
        for (uuid, jws) in payloads { #expect(try store.notification(uuid: uuid)?.signedPayload == jws, "\(uuid)") }
        #expect(try store.notifications(NotificationFilter(limit: 1000)).count == payloads.count)
    }
}
