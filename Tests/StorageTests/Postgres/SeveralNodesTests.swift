import Foundation
import Subscriptions
import Testing
import Threads

@testable import Storage

/// Several stores on one PostgreSQL database, as several `serve` nodes use it: copies of a
/// notification reaching different nodes at once, and timers every node's scheduler finds due.
@Suite(.enabled(if: PostgresTestDatabase.isAvailable)) struct SeveralNodesTests {
    typealias S = StoreUnderTest
    static let customers = 1...6

    /// Each customer's subscription bought at `t0`, then renewed three times.
    static func records() throws -> [NotificationRecord] {
        var records: [NotificationRecord] = []
        for n in customers {
            let original = "\(n)00"
            let bought = S.transaction(
                original, original: original, purchase: S.t0, expires: S.t0 + 30 * S.day, customer: S.customer(n))
            records.append(
                try S.record(
                    .subscribed, .initialBuy, uuid: "sub-\(original)", at: S.t0, transaction: bought,
                    renewal: S.renewal(original: original, signed: S.t0)))
            for period in 1...3 {
                let at = S.t0 + Int64(period) * 30 * S.day
                let renewed = S.transaction(
                    "\(original)-\(period)", original: original, purchase: at, expires: at + 30 * S.day, customer: S.customer(n))
                records.append(try S.record(.didRenew, uuid: "renew-\(original)-\(period)", at: at, transaction: renewed))
            }
        }
        return records
    }

    static func handOff() -> LedgerHandOff {
        let app = S.app
        return LedgerHandOff(app: { $0 == app.id ? app : nil })
    }

    /// Every customer's purchases as `GET /v1/subscribers` reads them.
    static func views(_ store: Store) throws -> [String: [PurchaseView]] {
        try store.read { (rows) throws(StoreError) in
            var views: [String: [PurchaseView]] = [:]
            for n in customers {
                do {
                    views[S.customer(n)] = try LedgerRows.customerView(S.customer(n), app: S.app, from: rows)?.purchases
                } catch let error as StoreError {
                    throw error
                } catch {
                    throw StoreError(.corrupt, "\(error)")
                }
            }
            return views
        }
    }

    @Test func copiesSentToThreeNodesAtOnceAreStoredOnceWithOneNodesState() throws {
        let records = try Self.records()
        let directory = try TemporaryDirectory()
        let single = try Store(path: directory.databasePath, handOff: Self.handOff())
        for record in records { #expect(try single.store(record) == .stored) }
        let expected = try Self.views(single)
        single.close()
        #expect(expected.count == Self.customers.count)

        let database = try PostgresTestDatabase()
        let nodes = try (0..<3).map { _ in try Store(postgres: database.url, handOff: Self.handOff()) }
        defer { nodes.forEach { $0.close() } }
        // Every node gets every notification, in its own shuffled order, all at once.
        let work = nodes.flatMap { node in records.shuffled().map { (node, $0) } }.shuffled()
        let outcomes = Collected<(String, StoreOutcome)>()
        let failures = Collected<String>()
        concurrently(work.count, threads: 12) { index in
            let (node, record) = work[index]
            do {
                outcomes.append((record.notificationUUID, try node.store(record)))
            } catch {
                failures.append("\(error)")
            }
        }
        #expect(failures.all.isEmpty)
        for record in records {
            let mine = outcomes.all.filter { $0.0 == record.notificationUUID }.map(\.1)
            #expect(mine.filter { $0 == .stored }.count == 1, "\(record.notificationUUID)")
            #expect(mine.filter { $0 == .duplicate }.count == 2, "\(record.notificationUUID)")
        }
        for node in nodes {
            #expect(try Self.views(node) == expected)
        }
        let events = try nodes[0].read { (rows) throws(StoreError) in
            try EventRows.list(EventFilter(appId: S.appId, limit: 1000), from: rows)
        }
        #expect(Set(events.map(\.position)).count == events.count)
        for n in Self.customers {
            let sequences = events.filter { $0.customer == S.customer(n) }.compactMap(\.sequence).sorted()
            #expect(sequences == Array(1...Int64(sequences.count)), "customer \(n): \(sequences)")
            #expect(sequences.count == 4)
        }
    }

    /// Two nodes' schedulers find the same timer due at once: it fires once.
    @Test func aTimerDueOnTwoNodesFiresOnce() throws {
        let database = try PostgresTestDatabase()
        let nodes = try (0..<2).map { _ in try Store(postgres: database.url, handOff: Self.handOff()) }
        defer { nodes.forEach { $0.close() } }
        let expires = S.t0 + 30 * S.day
        let bought = S.transaction("100", original: "100", purchase: S.t0, expires: expires, customer: S.customer(1))
        _ = try nodes[0].store(
            S.record(
                .subscribed, .initialBuy, uuid: "sub-100", at: S.t0, transaction: bought,
                renewal: S.renewal(original: "100", autoRenew: false, signed: S.t0)))
        let fired = Collected<Bool>()
        let failures = Collected<String>()
        concurrently(8, threads: 8) { index in
            do {
                try nodes[index % 2].write { transaction in
                    for timer in try PendingTimers.due(atMs: expires + 1, limit: 10, from: transaction) {
                        fired.append(
                            try LedgerInputs.keepAndApply(.dueTimer(timer), app: S.app, atMs: expires + 1, in: transaction)
                                != nil)
                    }
                }
            } catch {
                failures.append("\(error)")
            }
        }
        #expect(failures.all.isEmpty)
        #expect(fired.all.filter { $0 }.count == 1)
        let types = try nodes[1].read { (rows) throws(StoreError) in
            try EventRows.list(EventFilter(appId: S.appId, limit: 100), from: rows).map(\.type)
        }
        #expect(types.sorted() == ["EXPIRATION", "INITIAL_PURCHASE"], "\(types)")
    }

    /// Nodes signing requests at once with the same `requestReferenceId`: one keeps it.
    @Test func aCommerceReferenceTriedOnThreeNodesAtOnceIsKeptOnce() throws {
        let database = try PostgresTestDatabase()
        let nodes = try (0..<3).map { _ in try Store(postgres: database.url, handOff: Self.handOff()) }
        defer { nodes.forEach { $0.close() } }
        let kept = Collected<String>()
        let failures = Collected<String>()
        concurrently(12, threads: 12) { index in
            let request = StoredCommerceRequest(
                appUserId: "alice", operation: "CREATE_SUBSCRIPTION", requestJSON: "{}", token: "t\(index)",
                createdAtMs: S.t0)
            do {
                try nodes[index % 3].write { transaction in
                    if try CommerceRequestRows.insertPending(request, appId: S.appId, reference: "ref-1", in: transaction) {
                        kept.append(request.token)
                    }
                }
            } catch {
                failures.append("\(error)")
            }
        }
        #expect(failures.all.isEmpty)
        #expect(kept.all.count == 1, "\(kept.all)")
        let found = try nodes[2].read { (rows) throws(StoreError) in
            try CommerceRequestRows.find(appId: S.appId, reference: "ref-1", from: rows)
        }
        #expect(found?.token == kept.all.first)
    }
}
