import AppStore
import Foundation
import JSON
import LoopbackClient
import Testing
import Threads

@testable import Server
@testable import Storage

/// The PostgreSQL cluster `make test` starts (`scripts/with-postgres.sh`); nil without one.
enum TestCluster {
    static let url: PostgresURL? = ProcessInfo.processInfo.environment["REVENUEDOT_TEST_POSTGRES_URL"].flatMap {
        try? PostgresURL($0, environment: [:])
    }
}

/// `revenuedot serve` on PostgreSQL (the cluster `make test` starts), configured as a user would.
@Suite(.enabled(if: TestCluster.url != nil))
struct PostgresServeTests {
    /// The demo app tracking new purchases, with a webhook to `receiver`, on the database at `url`.
    static func webhookFixture(_ receiver: WebhookReceiver, _ url: PostgresURL) throws -> ServerFixture {
        try ServerFixture(
            demoOptions: """
                "trackNewPurchasesFromServerNotifications": true,
                "webhook": {"url": "\(receiver.url)", "timeoutSeconds": 5, "retryDelaysSeconds": [0], "concurrency": 4}
                """, database: "\"\(url.description.replacingOccurrences(of: "@", with: ":\(url.password ?? "")@"))\"")
    }

    /// A fresh database on the cluster, dropped at the end of `body`.
    static func withDatabase(_ body: (PostgresURL) throws -> Void) throws {
        let cluster = try #require(TestCluster.url)
        let name = "rd_serve_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try PostgresDatabases.create(name, on: cluster)
        defer { try? PostgresDatabases.drop(name, on: cluster) }
        try body(cluster.with(database: name))
    }

    @Test func notificationsAreStoredOnceAndAppliedWithThePasswordInAFile() throws {
        try Self.withDatabase { url in
            let passwordFile = FileManager.default.temporaryDirectory.appendingPathComponent("pg-\(UUID().uuidString)").path
            try Data((url.password ?? "").utf8).write(to: URL(fileURLWithPath: passwordFile))
            defer { try? FileManager.default.removeItem(atPath: passwordFile) }
            var withoutPassword = url
            withoutPassword.password = nil
            let fixture = try ServerFixture(
                database: #"{"url": "\#(withoutPassword.description)", "passwordFile": "\#(passwordFile)"}"#)
            let service = try fixture.startService()
            defer { service.shutdown() }
            let connection = try LoopbackConnection(port: service.port)
            let uuid = UUID().uuidString.lowercased()
            let payload = try fixture.signer.notification(uuid: uuid, originalTransactionId: "77")
            let first = try connection.postNotification(payload)
            #expect(first.status == 200)
            #expect(try JSONValue(parsing: first.body)["status"] == .string("stored"))
            let again = try connection.postNotification(payload)
            #expect(again.status == 200)
            #expect(try JSONValue(parsing: again.body)["status"] == .string("duplicate"))

            let store = try Store(postgres: url)
            defer { store.close() }
            let record = try #require(try store.notification(uuid: uuid))
            #expect(record.signedPayload == payload)
            #expect(record.state == .applied)
            #expect(record.originalTransactionId == "77")
        }
    }

    /// A wrong password: one line naming the database once, never a password; nothing served.
    @Test func aWrongPasswordIsOneLineWithoutThePassword() throws {
        try Self.withDatabase { url in
            var wrong = url
            wrong.password = "wrong-\(UUID().uuidString)"
            let text = "postgres://\(wrong.user):\(wrong.password ?? "")@\(wrong.host):\(wrong.port)/\(wrong.database)"
            let fixture = try ServerFixture(database: "\"\(text)\"")
            let config = try fixture.config()
            #expect(!"\(config.database)".contains(wrong.password ?? ""))
            let error = #expect(throws: ConfigError.self) { try RevenueDotService(quietly: config) }
            let line = error.map { "\($0)" } ?? ""
            #expect(line.contains("password authentication failed"), "\(line)")
            #expect(line.contains(url.database))
            #expect(!line.contains(wrong.password ?? ""))
            #expect(!line.contains("\n") && !line.contains(#"\u{"#), "\(line)")
            #expect(line.components(separatedBy: url.description).count == 2, "\(line)")
        }
    }

    /// Two nodes on one database, one webhook: every notification is posted to both at once;
    /// each event reaches the receiver once (claimed by one node at a time), in order per customer.
    @Test func twoNodesDeliverEachEventOnceInOrderPerCustomer() throws {
        try Self.withDatabase { url in
            let receiver = try WebhookReceiver()
            defer { receiver.stop() }
            let fixture = try Self.webhookFixture(receiver, url)
            let nodes = try (0..<2).map { _ in try fixture.startService() }
            defer { nodes.forEach { $0.shutdown() } }
            // Ten purchases, each bought then renewed twice: 30 events, 3 per customer.
            var payloads: [String] = []
            for index in 0..<10 {
                let original = "\(7_000_000_000 + index)"
                payloads.append(
                    try fixture.signer.notification(
                        type: "SUBSCRIBED", subtype: "INITIAL_BUY", originalTransactionId: original, transactionId: original))
                for period in 1...2 {
                    payloads.append(
                        try fixture.signer.notification(
                            type: "DID_RENEW", originalTransactionId: original, transactionId: "\(original)\(period)"))
                }
            }
            // Both copies of each notification at once, one to each node.
            let failures = Locked<[String]>([])
            let ports = nodes.map(\.port)
            for payload in payloads {
                runOnThreads(2) { index in
                    do {
                        let status = try LoopbackConnection(port: ports[index]).postNotification(payload).status
                        if status != 200 { failures.withLock { $0.append("status \(status)") } }
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                }
            }
            #expect(failures.value.isEmpty)
            let received = receiver.wait(seconds: 20) { $0.count >= 30 }
            Thread.sleep(forTimeInterval: 0.5)
            let all = receiver.received
            #expect(received.count >= 30)
            #expect(all.count == 30, "\(all.count) webhooks for 30 events")
            #expect(Set(all.map(\.id)).count == all.count, "no event twice")
            let byCustomer = Dictionary(grouping: all) { $0.event["app_user_id"]?.stringValue ?? "" }
            #expect(byCustomer.count == 10)
            for (customer, events) in byCustomer {
                let sequences = events.compactMap { (received) -> Int64? in
                    if case .integer(let sequence) = received.event["sequence"] { return sequence }
                    return nil
                }
                #expect(sequences == sequences.sorted(), "\(customer): \(sequences)")
            }
        }
    }
}

extension PostgresServeTests {
    /// Commits so far, from `/metrics`' commit histogram.
    static func commits(_ service: RevenueDotService) -> Int {
        let line = service.metrics.commitBatchSize.render(name: "c").first { $0.hasPrefix("c_count") } ?? ""
        return Int(line.split(separator: " ").last ?? "") ?? 0
    }

    /// An idle node with a webhook claims what is due once a poll: its claims commit, and a
    /// commit of claims alone wakes no worker. (Each claim used to wake its own worker, which
    /// claimed again at once: thousands of commits a second, each holding the write lock.)
    @Test func anIdleWebhookWorkerClaimsOncePerPoll() throws {
        try Self.withDatabase { url in
            let receiver = try WebhookReceiver()
            defer { receiver.stop() }
            let fixture = try Self.webhookFixture(receiver, url)
            let service = try fixture.startService()
            defer { service.shutdown() }
            // One event delivered, so the worker has run through a claim, a send and an outcome.
            let payload = try fixture.signer.notification(
                type: "SUBSCRIBED", subtype: "INITIAL_BUY", originalTransactionId: "7100000000", transactionId: "7100000000")
            #expect(try LoopbackConnection(port: service.port).postNotification(payload).status == 200)
            #expect(receiver.wait(seconds: 10) { $0.count >= 1 }.count == 1)
            Thread.sleep(forTimeInterval: 0.3)
            let before = Self.commits(service)
            Thread.sleep(forTimeInterval: 2)
            let commits = Self.commits(service) - before
            // A claim every 0.2 s is about 10; the scheduler and the other workers add a few.
            #expect(commits < 40, "\(commits) commits in 2 s of an idle node")
        }
    }
}

/// Three `revenuedot serve` processes on one database, one of them SIGKILLed mid-load.
@Suite(.enabled(if: TestCluster.url != nil))
struct PostgresClusterProcessTests {
    @Test func aNodeKilledMidLoadLosesNothingAndItsWebhooksAreTakenOver() throws {
        try PostgresServeTests.withDatabase { url in
            let receiver = try WebhookReceiver()
            defer { receiver.stop() }
            let text = "postgres://\(url.user):\(url.password ?? "")@\(url.host):\(url.port)/\(url.database)"
            let fixture = try ServerFixture(
                demoOptions: """
                    "trackNewPurchasesFromServerNotifications": true,
                    "webhook": {"url": "\(receiver.url)", "timeoutSeconds": 2, "retryDelaysSeconds": [0, 1], "concurrency": 4}
                    """, database: "\"\(text)\"")
            let nodes = try (0..<3).map { _ in try ChildServer(configPath: fixture.configPath) }
            defer { nodes.forEach { if $0.process.isRunning { $0.kill(SIGKILL) } } }
            // Twenty purchases, each bought then renewed twice: 60 events, 3 per customer.
            var payloads: [(uuid: String, jws: String)] = []
            for index in 0..<20 {
                let original = "\(8_000_000_000 + index)"
                for (period, type) in ["SUBSCRIBED", "DID_RENEW", "DID_RENEW"].enumerated() {
                    let uuid = UUID().uuidString.lowercased()
                    let jws = try fixture.signer.notification(
                        uuid: uuid, type: type, subtype: period == 0 ? "INITIAL_BUY" : nil, originalTransactionId: original,
                        transactionId: period == 0 ? original : "\(original)\(period)")
                    payloads.append((uuid, jws))
                }
            }
            // Each notification to two nodes at once, round-robin; node 2 is killed halfway. A
            // refused or failed post goes to the next live node, as Apple retries.
            let answered = Locked<Set<String>>([])
            for (index, payload) in payloads.enumerated() {
                if index == payloads.count / 2 { nodes[2].kill(SIGKILL) }
                let live = nodes.indices.filter { nodes[$0].process.isRunning }
                runOnThreads(2) { copy in
                    for attempt in 0..<live.count {
                        let node = nodes[live[(index + copy + attempt) % live.count]]
                        guard let response = try? LoopbackConnection(port: node.port).postNotification(payload.jws),
                            response.status == 200
                        else { continue }
                        answered.withLock { _ = $0.insert(payload.uuid) }
                        return
                    }
                }
            }
            #expect(answered.value.count == payloads.count)
            let store = try Store(postgres: url)
            defer { store.close() }
            for payload in payloads {
                #expect(try store.notification(uuid: payload.uuid)?.signedPayload == payload.jws, "\(payload.uuid)")
            }
            #expect(try store.notifications(NotificationFilter(limit: 1000)).count == payloads.count)
            // Every event reaches the receiver, the dead node's claims after their lease.
            let received = receiver.wait(seconds: 40) { Set($0.map(\.id)).count >= 60 }
            #expect(Set(received.map(\.id)).count == 60)
            // In order per customer, counting each event where it first arrived.
            var seen: Set<String> = []
            var sequences: [String: [Int64]] = [:]
            for request in received where seen.insert(request.id).inserted {
                if case .integer(let sequence) = request.event["sequence"] {
                    sequences[request.event["app_user_id"]?.stringValue ?? "", default: []].append(sequence)
                }
            }
            #expect(sequences.count == 20 && sequences.values.allSatisfy { $0.count == 3 }, "\(sequences)")
            for (customer, list) in sequences { #expect(list == list.sorted(), "\(customer): \(list)") }
        }
    }
}
