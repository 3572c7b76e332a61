import Foundation
import Testing
import Threads

@testable import Server
@_spi(StoreSQL) @testable import Storage
@testable import Tools

/// Which pending deliveries are due: the earliest pending event of each customer, in commit order.
@Suite("Due deliveries")
struct DueDeliveriesTests {
    /// Inserts events (customer, next attempt) in commit order, each with a pending delivery.
    static func store(_ rows: [(customer: String?, nextAttemptMs: Int64)]) throws -> (Store, TestDirectory) {
        let directory = TestDirectory("due-deliveries")
        let store = try Store(path: directory.path("revenuedot.sqlite"))
        try store.write { transaction in
            for (index, row) in rows.enumerated() {
                let position = Int64(index + 1)
                let customer = row.customer.map(SQLValue.text) ?? .null
                try transaction.execute(
                    "INSERT INTO events (id, app_id, customer, sequence, type, json, created_at, position) VALUES (?, 'demo', ?, ?, 'RENEWAL', '{}', 0, ?)",
                    [.text("e\(position)"), customer, .integer(position), .integer(position)])
                try transaction.execute(
                    "INSERT INTO deliveries (event_id, app_id, customer, position, status, next_attempt_at, created_at) VALUES (?, 'demo', ?, ?, 'pending', ?, 0)",
                    [.text("e\(position)"), customer, .integer(position), .integer(row.nextAttemptMs)])
            }
        }
        return (store, directory)
    }

    static func due(_ store: Store, window: Int, inFlight: Set<String> = []) throws -> [String] {
        try store.read { (rows) throws(StoreError) in
            do {
                return try Deliveries.due(
                    appId: "demo", nowMs: 1000, limit: 16, window: window, inFlight: inFlight, from: rows
                ).map(\.eventId)
            } catch { throw StoreError(.corrupt, "\(error)") }
        }
    }

    @Test func theEarliestPendingEventOfEachCustomerGoesFirst() throws {
        let (store, directory) = try Self.store([("a", 0), ("a", 0), ("b", 0), (nil, 0), ("b", 0), (nil, 0)])
        defer { store.close() }
        _ = directory
        #expect(try Self.due(store, window: 100) == ["e1", "e3", "e4", "e6"])
        // In flight: still pending in storage, so the customer's next event waits behind it.
        #expect(try Self.due(store, window: 100, inFlight: ["e1", "e3"]) == ["e4", "e6"])
    }

    /// A customer whose head waits for its retry holds back only that customer, even when its
    /// backlog is longer than one window of the scan.
    @Test func aLongBacklogInRetryDoesNotHideOtherCustomers() throws {
        let backlog = [(customer: String?, nextAttemptMs: Int64)]([("a", 5000)]) + Array(repeating: ("a", 0), count: 7)
        let (store, directory) = try Self.store(backlog + [("b", 0), ("c", 9999)])
        defer { store.close() }
        _ = directory
        #expect(try Self.due(store, window: 3) == ["e9"])
    }

    /// The scan starts with a small window and widens it: a customer's backlog longer than the
    /// first windows still lets the next customer through, and the budget is `window` rows a time.
    @Test func windowsWidenPastALongBacklog() throws {
        let backlog = [(customer: String?, nextAttemptMs: Int64)](repeating: ("a", 0), count: 300)
        let (store, directory) = try Self.store(backlog + [("b", 0), ("c", 0)])
        defer { store.close() }
        _ = directory
        #expect(try Self.due(store, window: 2000, inFlight: ["e1"]) == ["e301", "e302"])
        #expect(try Self.due(store, window: 2000) == ["e1", "e301", "e302"])
        // Ten windows of 20 rows reach no further than row 200.
        #expect(try Self.due(store, window: 20, inFlight: ["e1"]) == [])
    }

    /// The budget is `window × maxWindows` rows, however small the windows start: with windows of
    /// 33, 66 and then 100 rows, row 1,000 is the last one read.
    @Test func theRowBudgetHoldsAsWindowsWiden() throws {
        let backlog = [(customer: String?, nextAttemptMs: Int64)](repeating: ("a", 0), count: 999)
        let (store, directory) = try Self.store(backlog + [("b", 0), ("c", 0)])
        defer { store.close() }
        _ = directory
        #expect(try Self.due(store, window: 100, inFlight: ["e1"]) == ["e1000"])
    }

    /// `due` at 1000 with `holdMs`, as the worker reads it.
    static func due(
        _ store: Store, holdMs: Int64, window: Int = 2000, inFlight: Set<String> = [], webhook: String = ""
    ) throws -> [String] {
        try store.read { (rows) throws(StoreError) in
            do {
                return try Deliveries.due(
                    appId: "demo", webhook: webhook, nowMs: 1000, limit: 16, holdMs: holdMs, window: window,
                    inFlight: inFlight, from: rows
                ).map(\.eventId)
            } catch { throw StoreError(.corrupt, "\(error)") }
        }
    }

    /// Marks `events` as tried `attempts` times.
    static func tried(_ store: Store, _ events: [String], attempts: Int64 = 1) throws {
        try store.write { transaction in
            for event in events {
                try transaction.execute(
                    "UPDATE deliveries SET attempts = ? WHERE event_id = ?", [.integer(attempts), .text(event)])
            }
        }
    }

    /// A customer's failing event holds its later events back only for `orderHoldSeconds` after
    /// it was made (created at 0 here, now is 1000): then they go, and it keeps retrying.
    @Test func aFailingEventHoldsItsCustomerOnlyForTheHold() throws {
        let (store, directory) = try Self.store([("a", 5000), ("a", 0), ("a", 0), ("b", 0)])
        defer { store.close() }
        _ = directory
        // Not tried yet (due later): it holds, however old.
        #expect(try Self.due(store, holdMs: 500) == ["e4"])
        try Self.tried(store, ["e1"])
        #expect(try Self.due(store, holdMs: 2000) == ["e4"])
        // Held long enough: the next one goes (and holds the one after it, while it is sent).
        #expect(try Self.due(store, holdMs: 500) == ["e2", "e4"])
        // Another webhook's deliveries are its own.
        let other = try store.read { (rows) throws(StoreError) in
            do {
                return try Deliveries.due(appId: "demo", webhook: "audit", nowMs: 1000, limit: 16, inFlight: [], from: rows)
            } catch { throw StoreError(.corrupt, "\(error)") }
        }
        #expect(other.isEmpty)
    }

    /// An event on its first attempt holds its customer's later events however long that takes
    /// (a backlog after an outage, an import's events): only one that has failed lets them pass.
    /// Being sent here (`inFlight`) or claimed by another node, it is not due, and still holds.
    @Test func anEventOnItsFirstAttemptHoldsItsCustomerPastTheHold() throws {
        let (store, directory) = try Self.store([("a", 0), ("a", 0), ("b", 0)])
        defer { store.close() }
        _ = directory
        #expect(try Self.due(store, holdMs: 500, inFlight: ["e1"]) == ["e3"])
        try store.write { transaction in
            try transaction.execute(
                "UPDATE deliveries SET claimed_by = 'other', claimed_until = 5000 WHERE event_id = 'e1'", [])
        }
        let claimedElsewhere = try store.read { (rows) throws(StoreError) in
            do {
                return try Deliveries.due(
                    appId: "demo", nowMs: 1000, limit: 16, holdMs: 500, inFlight: [], node: "this", from: rows
                ).map(\.eventId)
            } catch { throw StoreError(.corrupt, "\(error)") }
        }
        #expect(claimedElsewhere == ["e3"])
        // Once it has failed, its retry in flight no longer holds the next one past the hold.
        try Self.tried(store, ["e1"])
        #expect(try Self.due(store, holdMs: 500, inFlight: ["e1"]) == ["e2", "e3"])
    }

    /// A receiver's outage leaves more retries waiting than the scan's windows hold: events made
    /// since, behind them in position order, are still found, since failed rows past their hold
    /// neither go nor hold and the scan leaves them out.
    @Test func retriesPastTheirHoldDoNotHideNewerEvents() throws {
        let retries = (0..<40).map { (customer: String?.some("c\($0)"), nextAttemptMs: Int64(5000)) }
        let (store, directory) = try Self.store(retries + [("new", 0)])
        defer { store.close() }
        _ = directory
        try Self.tried(store, (1...40).map { "e\($0)" })
        // 10 windows of 3 rows: 30 rows, fewer than the 40 retries before the new event.
        #expect(try Self.due(store, holdMs: 500, window: 3) == ["e41"])
        // Within their hold they still hold their customers, and fill the windows.
        #expect(try Self.due(store, holdMs: 2000, window: 3) == [])
    }

    /// Stored counts and times outside what any build writes (a damaged or hand-edited row) are
    /// read at their bounds: picking, recording an attempt and the outbox status never trap.
    @Test(arguments: [Int64.max, Int64.min, -1, Int64(Int32.max)])
    func extremeStoredAttemptsAndTimesNeverTrap(stored: Int64) throws {
        let (store, directory) = try Self.store([("a", 0)])
        defer { store.close() }
        _ = directory
        try store.write { transaction in
            try transaction.execute(
                "UPDATE deliveries SET attempts = ?, created_at = ?", [.integer(stored), .integer(stored)])
        }
        let due = try store.read { (rows) throws(StoreError) in
            do {
                return try Deliveries.due(appId: "demo", nowMs: 1000, limit: 16, inFlight: [], from: rows)
            } catch { throw StoreError(.corrupt, "\(error)") }
        }
        let delivery = try #require(due.first)
        #expect((0...Int(Int32.max)).contains(delivery.attempts))
        #expect(UnixTime.elapsedMs(from: delivery.createdAtMs, to: .max) >= 0)
        try store.write { transaction in
            let status = try Deliveries.record(
                .failed(status: 500, reason: "x"), of: delivery, retryDelaysSeconds: [10, 60], at: 1000, in: transaction)
            #expect(status.status == (delivery.attempts + 1 > 2 ? "dead" : "pending"))
            _ = try Deliveries.status(nowMs: .max, from: transaction)
            _ = try Deliveries.status(nowMs: .min, from: transaction)
        }
    }

    @Test(arguments: [
        (Int64(0), Int64(5), Int64(5)), (5, 0, 0), (.min, .max, .max), (.max, .min, 0), (-1, .max, .max), (.min, 0, .max),
    ])
    func elapsedTimeSaturates(start: Int64, end: Int64, elapsed: Int64) {
        #expect(UnixTime.elapsedMs(from: start, to: end) == elapsed)
    }
}
