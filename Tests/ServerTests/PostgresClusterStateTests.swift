import Foundation
import LoopbackClient
import Storage
import Subscriptions
import Synchronization
import Testing
import Threads

@testable import Server

/// Three `revenuedot serve` processes on one PostgreSQL database end where one SQLite node ends:
/// the notifications posted round-robin in a shuffled order, each copy of a notification to two
/// nodes at the same time, several notifications at once.
@Suite(.enabled(if: TestCluster.url != nil))
struct PostgresClusterStateTests {
    static let demoOptions = #""trackNewPurchasesFromServerNotifications": true"#

    /// Ten subscriptions, each bought then renewed twice, all three periods begun in the last
    /// three hours (so no period has ended and no scheduler fires during the test). Half the
    /// purchases name their customer (`appAccountToken`); the others are tracked anonymously.
    static func payloads(_ signer: SignedNotifications) throws -> [String] {
        let nowMs = Int64(Date().timeIntervalSince1970 * 1000)
        let hourMs: Int64 = 3_600_000
        var payloads: [String] = []
        for index in 0..<10 {
            let original = "\(9_100_000_000 + index)"
            let token = index.isMultiple(of: 2) ? UUID().uuidString.lowercased() : nil
            for period in 0..<3 {
                payloads.append(
                    try signer.notification(
                        type: period == 0 ? "SUBSCRIBED" : "DID_RENEW", subtype: period == 0 ? "INITIAL_BUY" : nil,
                        originalTransactionId: original, appAccountToken: token,
                        transactionId: period == 0 ? original : "\(original)-\(period)",
                        atMs: nowMs - Int64(3 - period) * hourMs))
            }
        }
        return payloads
    }

    /// What a database ends with: each event (id → type and customer), each customer's
    /// purchases as `GET /v1/subscribers` reads them, and each customer's event sequences.
    struct Outcome: Equatable {
        var events: [String: String]
        var purchases: [String: [PurchaseView]]
        var sequences: [String: [Int64]]
    }

    /// Anonymous customers under a name two databases share: each database keys their ids
    /// with a secret of its own (`AnonymousIds`).
    static func anonymousNames(in store: Store) -> [String: String] {
        Dictionary(
            uniqueKeysWithValues: (0..<10).map { index in
                let original = "\(9_100_000_000 + index)"
                let id = store.anonymousIds.id(
                    for: .subscription(originalTransactionId: original), originalTransactionId: original)
                return (id, "anonymous:\(original)")
            })
    }

    static func outcome(of store: Store, app: LedgerApp) throws -> Outcome {
        let names = anonymousNames(in: store)
        let events = try store.read { (rows) throws(StoreError) in
            try EventRows.list(EventFilter(appId: app.id, limit: 1000), from: rows)
        }
        let customers = Set(events.compactMap(\.customer))
        let purchases = try store.read { (rows) throws(StoreError) -> [String: [PurchaseView]] in
            var purchases: [String: [PurchaseView]] = [:]
            for customer in customers {
                do {
                    purchases[customer] = try LedgerRows.customerView(customer, app: app, from: rows)?.purchases ?? []
                } catch let error as StoreError { throw error } catch { throw StoreError(.corrupt, "\(error)") }
            }
            return purchases
        }
        func name(_ customer: String?) -> String { customer.map { names[$0] ?? $0 } ?? "-" }
        return Outcome(
            events: Dictionary(uniqueKeysWithValues: events.map { ($0.id, "\($0.type) \(name($0.customer))") }),
            purchases: Dictionary(uniqueKeysWithValues: purchases.map { (name($0.key), $0.value) }),
            sequences: Dictionary(grouping: events.filter { $0.customer != nil }, by: { name($0.customer) })
                .mapValues { $0.compactMap(\.sequence).sorted() })
    }

    @Test func shuffledCopiesAtThreeNodesEndAsOneSQLiteNode() throws {
        let signer = SignedNotifications.shared
        let payloads = try Self.payloads(signer)

        // One SQLite node: every notification twice, in a shuffled order of its own.
        let single = try ServerFixture(demoOptions: Self.demoOptions)
        let app = try single.config().apps[0].ledger
        do {
            let service = try single.startService()
            defer { service.shutdown() }
            let connection = try LoopbackConnection(port: service.port)
            for payload in (payloads + payloads).shuffled() {
                try #require(try connection.postNotification(payload).status == 200)
            }
        }
        let sqlite = try Store(path: single.databasePath)
        let expected = try Self.outcome(of: sqlite, app: app)
        sqlite.close()
        #expect(expected.events.count == 30)
        #expect(expected.purchases.count == 10)
        #expect(expected.purchases.values.allSatisfy { $0.count == 1 })

        try PostgresServeTests.withDatabase { url in
            let text = "postgres://\(url.user):\(url.password ?? "")@\(url.host):\(url.port)/\(url.database)"
            let fixture = try ServerFixture(demoOptions: Self.demoOptions, database: "\"\(text)\"")
            let nodes = try (0..<3).map { _ in try ChildServer(configPath: fixture.configPath) }
            defer { nodes.forEach { if $0.process.isRunning { $0.kill(SIGKILL) } } }
            let ports = nodes.map(\.port)
            // Four posters take the shuffled notifications in turn; each sends its two copies to
            // two nodes at the same time, round-robin.
            let order = payloads.shuffled()
            let next = Atomic<Int>(0)
            let failures = Locked<[String]>([])
            runOnThreads(4) { _ in
                while case let index = next.add(1, ordering: .relaxed).oldValue, index < order.count {
                    runOnThreads(2) { copy in
                        let port = ports[(index + copy) % ports.count]
                        do {
                            let status = try LoopbackConnection(port: port).postNotification(order[index]).status
                            if status != 200 { failures.withLock { $0.append("\(port): status \(status)") } }
                        } catch {
                            failures.withLock { $0.append("\(port): \(error)") }
                        }
                    }
                }
            }
            #expect(failures.value.isEmpty, "\(failures.value)")
            for node in nodes {
                node.kill(SIGTERM)
                #expect(node.wait() == 0)
            }
            let store = try Store(postgres: url)
            defer { store.close() }
            let cluster = try Self.outcome(of: store, app: app)
            #expect(cluster.events == expected.events)
            #expect(cluster.purchases == expected.purchases)
            // Sequences are given in commit order, so only their run is the same: 1, 2, 3.
            #expect(cluster.sequences == expected.sequences)
            #expect(cluster.sequences.values.allSatisfy { $0 == [1, 2, 3] }, "\(cluster.sequences)")
        }
    }
}
