import Foundation
import Subscriptions
import Testing

@_spi(StoreSQL) @testable import Storage

/// `/v1/events` lists only events on disk: on SQLite a reader sees a commit before the WAL
/// flusher has made it durable, and a power loss would take back an event a consumer had read.
@Suite struct DurableEventsTests {
    static func insert(_ id: String, into store: Store) {
        store.write(
            { transaction in
                try Outbox.insert(Event(type: .renewal, id: id), appId: "demo", at: 1, webhooks: [], in: transaction)
            }, completion: { _ in })
    }

    static func page(_ store: Store, upTo: Int64 = .max) throws -> [Int64] {
        try store.read { (rows) throws(StoreError) in
            try EventRows.page(appId: "demo", after: 0, upTo: upTo, limit: 10, from: rows).map(\.position)
        }
    }

    @Test func anEventIsListedOnceItsCommitIsOnDisk() throws {
        let held = try GatedStore()
        let durable = try #require(held.store.durableEvents)
        #expect(durable.position == 0)
        Self.insert("e1", into: held.store)
        try waitFor("the flush of the event's commit") { held.gate.started == 1 }
        // Readers see it; it is not on disk yet, so it is not listed.
        #expect(try Self.page(held.store) == [1])
        #expect(durable.position == 0)
        #expect(try Self.page(held.store, upTo: durable.position) == [])
        held.gate.open()
        try waitFor("the position on disk") { durable.position == 1 }
        #expect(try Self.page(held.store, upTo: durable.position) == [1])
    }

    /// At open, every event in the database is on disk.
    @Test func aStoreOpensWithEveryEventOnDisk() throws {
        let directory = try TemporaryDirectory()
        let first = try Store(path: directory.databasePath)
        Self.insert("e1", into: first)
        Self.insert("e2", into: first)
        try first.write { _ in }
        first.close()
        let again = try Store(path: directory.databasePath)
        defer { again.close() }
        #expect(again.durableEvents?.position == 2)
    }

    /// PostgreSQL's commit is durable when readers can see it: nothing to hold back.
    @Test(.enabled(if: PostgresTestDatabase.isAvailable)) func postgresHoldsNothingBack() throws {
        let database = try PostgresTestDatabase()
        let store = try Store(postgres: database.url)
        defer { store.close() }
        #expect(store.durableEvents == nil)
    }
}
