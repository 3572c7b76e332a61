import Foundation
import Testing

@testable import Storage

@Suite struct GroupCommitTests {
    /// 1,000 concurrent stores, 10% of them repeating an earlier UUID.
    @Test func concurrentStoresAreEachCommittedOnceInSharedTransactions() throws {
        let directory = try TemporaryDirectory()
        let batches = Collected<Int>()
        let store = try Store(path: directory.databasePath, onCommit: { batches.append($0.items) })
        defer { store.close() }
        // i < 900: a new UUID; i >= 900: a UUID from the first 900 (719 is coprime with 900, so all distinct).
        let uuids = (0..<1000).map { index in "n-\(index < 900 ? index : index * 719 % 900)" }
        let outcomes = Collected<(String, StoreOutcome)>()
        let failures = Collected<StoreError>()

        concurrently(uuids.count) { index in
            do throws(StoreError) {
                outcomes.append((uuids[index], try store.store(makeRecord(uuids[index]))))
            } catch {
                failures.append(error)
            }
        }

        #expect(failures.all.isEmpty)
        let stored = outcomes.all.filter { $0.1 == .stored }.map(\.0)
        #expect(stored.count == 900)
        #expect(Set(stored) == Set(uuids))
        #expect(outcomes.all.filter { $0.1 == .duplicate }.count == 100)
        #expect(try rawQuery(directory.databasePath, "SELECT count(*) FROM notifications") == [[.integer(900)]])
        #expect(batches.all.reduce(0, +) == 1000)
        #expect(batches.all.max() ?? 0 > 1, "group commit should put concurrent stores in one transaction")
    }

    /// A statement failing for one item is contained by its savepoint; the rest of the batch commits.
    @Test func oneFailingItemDoesNotFailItsBatch() throws {
        let directory = try TemporaryDirectory()
        let store = try Store(path: directory.databasePath)
        defer { store.close() }
        try rawExecute(
            directory.databasePath,
            """
            CREATE TRIGGER refuse_bad BEFORE INSERT ON notifications WHEN NEW.app_id = 'bad'
            BEGIN SELECT RAISE(ABORT, 'bad app'); END;
            """)
        let results = Collected<(Int, Result<StoreOutcome, StoreError>)>()

        concurrently(40, threads: 40) { index in
            let record = makeRecord("n\(index)", appId: index == 7 ? "bad" : "good")
            results.append((index, Result { () throws(StoreError) in try store.store(record) }))
        }

        for (index, result) in results.all {
            if index == 7 {
                #expect(throws: StoreError.self) { try result.get() }
            } else {
                #expect(try result.get() == .stored)
            }
        }
        #expect(try rawQuery(directory.databasePath, "SELECT count(*) FROM notifications") == [[.integer(39)]])
    }

    /// A COMMIT that fails (here a deferred foreign key, checked only at COMMIT) makes the writer retry
    /// each item in its own transaction, so only the item at fault fails. The same stores without
    /// the fault commit together, and with it each is committed by the fallback.
    @Test func failedCommitIsRetriedItemByItem() throws {
        let directory = try TemporaryDirectory()
        let batches = Collected<CommittedBatch>()
        let store = try Store(path: directory.databasePath, onCommit: { batches.append($0) })
        defer { store.close() }
        try rawExecute(
            directory.databasePath,
            """
            CREATE TABLE parents (id INTEGER PRIMARY KEY);
            CREATE TABLE children (parent INTEGER REFERENCES parents (id) DEFERRABLE INITIALLY DEFERRED);
            CREATE TRIGGER orphan AFTER INSERT ON notifications WHEN NEW.app_id = 'orphan'
            BEGIN INSERT INTO children (parent) VALUES (42); END;
            """)
        let blocker = try SQLiteConnection(path: directory.databasePath, role: .writer)
        /// 20 stores made while the write lock is held, so that they queue up and reach the
        /// writer as one batch; `orphan` is the one whose commit fails.
        func storeWhileLocked(_ prefix: String, orphan: Int?) throws -> [(Int, Result<StoreOutcome, StoreError>)] {
            try blocker.run("BEGIN IMMEDIATE")
            let queuedBefore = store.writesQueued
            let results = Collected<(Int, Result<StoreOutcome, StoreError>)>()
            let group = DispatchGroup()
            DispatchQueue.global().async(group: group) {
                concurrently(20, threads: 20) { index in
                    let record = makeRecord("\(prefix)\(index)", appId: index == orphan ? "orphan" : "good")
                    results.append((index, Result { () throws(StoreError) in try store.store(record) }))
                }
            }
            // The writer took the first and waits for the lock: the others queue behind it.
            try waitFor("the 20 stores to be queued") { store.writesQueued - queuedBefore == 20 }
            try blocker.run("ROLLBACK")
            group.wait()
            return results.all
        }

        #expect(try storeWhileLocked("good", orphan: nil).allSatisfy { (try? $0.1.get()) == .stored })
        #expect(batches.all.map(\.items).reduce(0, +) == 20)
        #expect(batches.all.map(\.items).max() ?? 0 > 1, "stores queued behind the lock commit together: \(batches.all)")
        #expect(!batches.all.contains { $0.retriedAlone })
        let together = batches.all.count

        for (index, result) in try storeWhileLocked("n", orphan: 5) {
            if index == 5 {
                let error = #expect(throws: StoreError.self) { try result.get() }
                #expect(error?.message.contains("FOREIGN KEY") == true)
            } else {
                #expect(try result.get() == .stored)
            }
        }
        #expect(try rawQuery(directory.databasePath, "SELECT count(*) FROM notifications") == [[.integer(39)]])
        // Each of the 19 is committed alone by the writer's fallback, after the batch failed.
        let retried = Array(batches.all.dropFirst(together))
        #expect(retried.map(\.items) == Array(repeating: 1, count: 19), "\(retried)")
        #expect(retried.allSatisfy { $0.retriedAlone }, "the items of the failed batch commit one by one: \(retried)")
    }
}
