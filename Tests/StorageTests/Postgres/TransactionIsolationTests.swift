import Foundation
import Testing
import Threads

@_spi(StoreSQL) @testable import Storage

/// The write path waits for the cluster-wide write lock inside its transaction and then reads
/// what the node before it committed: that needs a snapshot per statement (READ COMMITTED). A
/// database whose default isolation is stricter must not change what two nodes store.
@Suite(.enabled(if: PostgresTestDatabase.isAvailable)) struct TransactionIsolationTests {
    typealias S = StoreUnderTest

    @Test(arguments: ["repeatable read", "serializable"])
    func twoNodesStoreEverythingWhateverTheDatabasesDefaultIsolation(_ isolation: String) throws {
        let under = try StoreUnderTest(.postgres)
        let database = try #require(under.database)
        // New sessions take the database's default; the nodes below connect after this.
        try database.connect().execute(
            script: "ALTER DATABASE \(database.url.database) SET default_transaction_isolation = '\(isolation)'")
        let nodes = [try under.anotherNode(), try under.anotherNode()]
        defer { for node in nodes { node.close() } }
        let seen = Locked<[[SQLValue]]>([])
        try nodes[0].write { transaction in
            let rows = try transaction.query("SHOW transaction_isolation", [])
            seen.withLock { $0 = rows }
        }
        #expect(seen.value == [[.text("read committed")]])

        // Both nodes store the same notifications at once, as Apple's retries and a load
        // balancer make them do: each subscription's purchase and renewal make events.
        let count = 300
        let records = try (0..<count).flatMap { n -> [NotificationRecord] in
            let original = "iso-\(n)"
            let purchase = S.transaction(
                original, original: original, purchase: S.t0, expires: S.t0 + 30 * S.day, customer: S.customer(n % 8))
            let renewal = S.transaction(
                "\(original)-1", original: original, purchase: S.t0 + 30 * S.day, expires: S.t0 + 60 * S.day,
                customer: S.customer(n % 8))
            return [
                try S.record(.subscribed, .initialBuy, uuid: "sub-\(original)", at: S.t0, transaction: purchase),
                try S.record(.didRenew, uuid: "renew-\(original)", at: S.t0 + 30 * S.day, transaction: renewal),
            ]
        }
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2 * records.count) { index in
            let node = nodes[index % 2]
            do { _ = try node.store(records[index / 2]) } catch { failures.withLock { $0.append("\(error)") } }
        }
        #expect(failures.value.isEmpty, "\(failures.value.prefix(3))")
        let stored = try under.store.notifications(NotificationFilter(limit: 1000))
        #expect(stored.count == records.count)
        let failed = stored.filter { $0.state != .applied }
        #expect(failed.isEmpty, "\(failed.prefix(3).map { "\($0.notificationUUID): \($0.stateReason ?? "")" })")
        // Two events a subscription (a purchase and its renewal), each at a position of its own.
        let events = try under.events()
        #expect(events.count == 2 * count)
        #expect(Set(events.map(\.position)).count == events.count)
    }
}
