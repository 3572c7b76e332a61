import Foundation
import Subscriptions
import Testing

@testable import Server
@_spi(StoreSQL) @testable import Storage
@testable import Tools

/// Migration 13 keeps a subscription's timer in its purchase row; a timer without a row stays in
/// `timers`. Both must read, fire, move and go away as one list.
@Suite struct PendingTimersTests {
    @Test func aTimerGoesIntoItsPurchaseRowOrElseIntoTimers() throws {
        let directory = TestDirectory()
        let store = try Store(path: directory.path("revenuedot.sqlite"))
        defer { store.close() }
        try store.write { transaction in
            try transaction.execute("INSERT INTO purchases (app_id, purchase_key, json) VALUES ('demo', 's:1', '{}')")
            try PendingTimers.schedule(ExpirationTimer(originalTransactionId: "1", fireAtMs: 300), appId: "demo", in: transaction)
            try PendingTimers.schedule(ExpirationTimer(originalTransactionId: "2", fireAtMs: 100), appId: "demo", in: transaction)
            // A second timer for a subscription replaces the first, in either place.
            try PendingTimers.schedule(ExpirationTimer(originalTransactionId: "1", fireAtMs: 200), appId: "demo", in: transaction)
            try PendingTimers.schedule(ExpirationTimer(originalTransactionId: "2", fireAtMs: 150), appId: "demo", in: transaction)
        }
        let (rows, overflow, due, early) = try store.read { (rows) throws(StoreError) in
            (
                try rows.query("SELECT purchase_key, timer_fire_at FROM purchases", []),
                try rows.query("SELECT id, fire_at FROM timers", []),
                try PendingTimers.due(atMs: 1000, limit: 10, from: rows),
                try PendingTimers.due(atMs: 160, limit: 10, from: rows)
            )
        }
        #expect(rows == [[.text("s:1"), .integer(200)]])
        #expect(overflow == [[.text("expiration/2"), .integer(150)]])
        #expect(due == [.init(appId: "demo", id: "expiration/2"), .init(appId: "demo", id: "expiration/1")])
        #expect(early == [.init(appId: "demo", id: "expiration/2")])
    }

    @Test func dueTimersLoadMoveAndGoAwayWhereverTheyAreKept() throws {
        let directory = TestDirectory()
        let store = try Store(path: directory.path("revenuedot.sqlite"))
        defer { store.close() }
        let inRow = PendingTimers.Due(appId: "demo", id: "expiration/1")
        let inTimers = PendingTimers.Due(appId: "demo", id: "expiration/2")
        try store.write { transaction in
            try transaction.execute("INSERT INTO purchases (app_id, purchase_key, json) VALUES ('demo', 's:1', '{}')")
            try PendingTimers.schedule(ExpirationTimer(originalTransactionId: "1", fireAtMs: 100), appId: "demo", in: transaction)
            try PendingTimers.schedule(ExpirationTimer(originalTransactionId: "2", fireAtMs: 100), appId: "demo", in: transaction)
        }
        try store.write { transaction in
            #expect(try PendingTimers.load(inRow, atMs: 99, in: transaction) == nil)
            #expect(
                try PendingTimers.load(inRow, atMs: 100, in: transaction)
                    == ExpirationTimer(originalTransactionId: "1", fireAtMs: 100))
            #expect(
                try PendingTimers.load(inTimers, atMs: 100, in: transaction)
                    == ExpirationTimer(originalTransactionId: "2", fireAtMs: 100))
            try PendingTimers.postpone(inRow, dueAtMs: 100, toMs: 5000, in: transaction)
            try PendingTimers.postpone(inTimers, dueAtMs: 100, toMs: 6000, in: transaction)
        }
        #expect(try store.read { (rows) throws(StoreError) in try PendingTimers.due(atMs: 4999, limit: 10, from: rows) }.isEmpty)
        #expect(
            try store.read { (rows) throws(StoreError) in try PendingTimers.due(atMs: 6000, limit: 10, from: rows) }
                == [inRow, inTimers])
        try store.write { transaction in
            try PendingTimers.remove(inRow, in: transaction)
            try PendingTimers.remove(inTimers, in: transaction)
        }
        #expect(try store.read { (rows) throws(StoreError) in try PendingTimers.due(atMs: .max, limit: 10, from: rows) }.isEmpty)
        // The purchase row itself stays.
        #expect(
            try store.read { (rows) throws(StoreError) in try rows.query("SELECT count(*) FROM purchases", []) }
                == [[.integer(1)]])
    }

    @Test func dueTimersAreFoundThroughThePartialIndex() throws {
        let directory = TestDirectory()
        let store = try Store(path: directory.path("revenuedot.sqlite"))
        defer { store.close() }
        let plan = try store.read { (rows) throws(StoreError) in
            try rows.query(
                "EXPLAIN QUERY PLAN SELECT purchase_key FROM purchases WHERE timer_fire_at <= ?", [.integer(1)])
        }
        let details = plan.compactMap { $0.last?.textValue }
        #expect(details.contains { $0.contains("USING INDEX purchases_by_timer") }, "plan: \(details)")
    }

    /// A timer kept in `timers` for a subscription that had no row yet moves into the row the
    /// subscription's first notification writes: never a timer in both places.
    @Test func aSubscriptionsFirstRowTakesOverItsKeptTimer() throws {
        let harness = try EventSemanticsTests()
        defer { harness.stop() }
        let (fixture, story) = (harness.fixture, harness.story)
        let id = ExpirationTimer(originalTransactionId: story.originalTransactionId, fireAtMs: 0).id
        let other = try Store(path: fixture.databasePath)
        try other.write { transaction in
            try transaction.execute(
                "INSERT INTO timers (app_id, id, fire_at, json) VALUES ('demo', ?, 5, '{}')", [.text(id)])
        }
        other.close()
        let period = story.period(1, from: Story.nowMs, until: Story.nowMs + 60_000)
        try harness.post(try story.notification("SUBSCRIBED", "INITIAL_BUY", period: period))
        let check = try Store(path: fixture.databasePath)
        defer { check.close() }
        let (kept, row) = try check.read { (rows) throws(StoreError) in
            (
                try rows.query("SELECT count(*) FROM timers WHERE id = ?", [.text(id)]),
                try rows.query(
                    "SELECT timer_fire_at FROM purchases WHERE purchase_key = ?", [.text("s:" + story.originalTransactionId)])
            )
        }
        #expect(kept == [[.integer(0)]])
        let fireAt = try #require(row.first?.first?.integerValue)
        #expect(fireAt >= period.expiresMs, "the new timer, not the kept one at 5")
    }
}
