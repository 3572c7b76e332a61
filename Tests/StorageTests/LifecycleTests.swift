import Foundation
import Testing

@_spi(StoreSQL) @testable import Storage

/// Reads the writer connection's settings from inside its transaction.
final class PragmaProbe: NotificationHandOff {
    let values = Collected<[String: SQLValue]>()

    func handOff(_ record: NotificationRecord, in transaction: WriteTransaction) throws -> NotificationState {
        var values: [String: SQLValue] = [:]
        for pragma in ["journal_mode", "synchronous", "foreign_keys", "busy_timeout"] {
            values[pragma] = try transaction.query("PRAGMA \(pragma)").first?.first
        }
        self.values.append(values)
        return record.state
    }
}

@Suite struct LifecycleTests {
    /// The writer commits with `synchronous=NORMAL`: its commits do not wait for the disk, the
    /// flusher does before answering (`WALFlushTests`). Other connections keep `FULL`.
    @Test func writerRunsInWALAndLeavesFlushesToTheFlusher() throws {
        let directory = try TemporaryDirectory()
        let probe = PragmaProbe()
        let store = try Store(path: directory.databasePath, handOff: probe)
        defer { store.close() }

        _ = try store.store(makeRecord("a"))

        let expected: [String: SQLValue] = [
            "journal_mode": .text("wal"), "synchronous": .integer(1), "foreign_keys": .integer(1),
            "busy_timeout": .integer(5000),
        ]
        #expect(probe.values.all == [expected])
        #expect(try rawQuery(directory.databasePath, "PRAGMA journal_mode") == [[.text("wal")]])
        #expect(try rawQuery(directory.databasePath, "PRAGMA synchronous") == [[.integer(2)]])
    }

    @Test func closeDrainsQueuedWritesAndLaterStoresAreRefused() throws {
        let directory = try TemporaryDirectory()
        let store = try Store(path: directory.databasePath)
        let stored = Collected<String>()
        let refused = Collected<StoreError.Code>()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            concurrently(400, threads: 40) { index in
                do throws(StoreError) {
                    if try store.store(makeRecord("n\(index)")) == .stored { stored.append("n\(index)") }
                } catch {
                    refused.append(error.code)
                }
            }
        }
        while stored.all.count < 50 { Thread.sleep(forTimeInterval: 0.001) }
        store.close()
        group.wait()
        store.close()  // idempotent

        #expect(Set(refused.all).isSubset(of: [.unavailable]))
        #expect(stored.all.count + refused.all.count == 400)
        let error = #expect(throws: StoreError.self) { try store.store(makeRecord("late")) }
        #expect(error?.code == .unavailable)
        #expect(throws: StoreError.self) { try store.notifications(NotificationFilter()) }
        #expect(throws: StoreError.self) { try store.healthCheck() }
        store.recordReject(Reject(appId: "demo", status: "late", reason: "after close", at: 0))

        let reopened = try Store(path: directory.databasePath)
        defer { reopened.close() }
        let found = try reopened.notifications(NotificationFilter(limit: 1000)).map(\.notificationUUID)
        #expect(Set(found) == Set(stored.all))
        #expect(try reopened.rejectLog().counts.isEmpty)
    }

    /// The store that owns the database (exclusive: serve, replay) checkpoints and truncates the
    /// WAL as it closes. (A shared one leaves that to SQLite, which does it as the last connection
    /// closes only when it gets the lock then: a WAL left behind is replayed at the next open.)
    @Test func closeCheckpointsTheWAL() throws {
        let directory = try TemporaryDirectory()
        let store = try Store(path: directory.databasePath, exclusive: true)
        for index in 0..<20 { _ = try store.store(makeRecord("n\(index)")) }
        _ = try store.notifications(NotificationFilter())
        store.close()

        let wal = directory.databasePath + "-wal"
        let walSize = (try? FileManager.default.attributesOfItem(atPath: wal)[.size] as? Int) ?? 0
        #expect(walSize == 0)
        #expect(try rawQuery(directory.databasePath, "SELECT count(*) FROM notifications") == [[.integer(20)]])
    }

    /// What a commit returned must be in the file, whoever opens it next.
    @Test func committedNotificationsAreReadByAFreshStore() throws {
        let directory = try TemporaryDirectory()
        let first = try Store(path: directory.databasePath)
        defer { first.close() }
        let records = (0..<10).map { makeRecord("n\($0)", receivedAt: Int64($0)) }
        for record in records { #expect(try first.store(record) == .stored) }

        // No close: a second store (its own writer and readers) opens the same file while the first is live.
        let second = try Store(path: directory.databasePath)
        defer { second.close() }
        #expect(try second.notifications(NotificationFilter()) == records.reversed())
        #expect(try second.store(records[0]) == .duplicate)
    }

    /// A health check's timeout and the writer's answer race for one completion: the first
    /// result counts, for a waiter and for a callback alike.
    @Test func aCompletionKeepsItsFirstResult() throws {
        let waited = Completion<Int>()
        waited.resolve(.success(1))
        waited.resolve(.success(2))
        #expect(try waited.wait().get() == 1)
        let calls = Collected<Int>()
        let called = Completion<Int> { calls.append((try? $0.get()) ?? -1) }
        called.resolve(.success(3))
        called.resolve(.failure(StoreError(.busy, "late")))
        #expect(calls.all == [3])
    }

    /// On a full disk the write lock is still taken, so that alone said healthy while every
    /// notification was refused: a write that failed for lack of room fails the health check
    /// until a commit succeeds again. (`max_page_count` stands in for the disk.)
    @Test func healthCheckFailsWhileWritesFailForLackOfRoom() throws {
        let directory = try TemporaryDirectory()
        let store = try Store(path: directory.databasePath)
        defer { store.close() }
        _ = try store.store(makeRecord("before"))
        try store.healthCheck()
        try store.write { transaction in
            let pages = try transaction.query("PRAGMA page_count").first?.first?.integerValue ?? 0
            try transaction.execute("PRAGMA max_page_count = \(pages)")
        }
        // Random symbols, which zstd cannot shrink below 64 KiB.
        var generator = SystemRandomNumberGenerator()
        let symbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let big = String((0..<(96 << 10)).map { _ in symbols.randomElement(using: &generator)! })
        var refused = makeRecord("refused")
        refused.signedPayload = big
        let failed = #expect(throws: StoreError.self) { try store.store(refused) }
        #expect(failed?.code == .io)
        let error = #expect(throws: StoreError.self) { try store.healthCheck() }
        #expect(error?.code == .io)
        #expect(error?.message.contains("none has committed since") == true)

        try store.write { transaction in try transaction.execute("PRAGMA max_page_count = 1000000") }
        try store.healthCheck()
        #expect(try store.store(refused) == .stored)
    }

    @Test func healthCheckAnswersAndReportsALockedDatabaseAsBusy() throws {
        let directory = try TemporaryDirectory()
        let store = try Store(path: directory.databasePath)
        defer { store.close() }
        try store.healthCheck()

        let other = try SQLiteConnection(path: directory.databasePath, role: .writer)
        try other.run("BEGIN IMMEDIATE")
        let error = #expect(throws: StoreError.self) { try store.healthCheck() }
        try other.run("ROLLBACK")
        #expect(error?.code == .busy)
    }
}
