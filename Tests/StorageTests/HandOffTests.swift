import Synchronization
import Testing

@_spi(StoreSQL) @testable import Storage

/// A hand-off that checks it runs inside the transaction, logs each call in a table, and fails on demand.
final class RecordingHandOff: NotificationHandOff {
    let calls = Collected<String>()
    let failing: Set<String>

    init(failing: Set<String> = []) {
        self.failing = failing
    }

    func handOff(_ record: NotificationRecord, in transaction: WriteTransaction) throws -> NotificationState {
        calls.append(record.notificationUUID)
        // The row is inserted after the hand-off, once, with the state it returns.
        let visible = try transaction.query(
            "SELECT state FROM notifications WHERE notification_uuid = ?", [.text(record.notificationUUID)])
        guard visible.isEmpty else {
            throw TestFailure(description: "the notification was inserted before its hand-off: \(visible)")
        }
        try transaction.execute("CREATE TABLE IF NOT EXISTS hand_off_log (uuid TEXT PRIMARY KEY)")
        try transaction.execute("INSERT INTO hand_off_log (uuid) VALUES (?)", [.text(record.notificationUUID)])
        if failing.contains(record.notificationUUID) {
            throw TestFailure(description: "boom \(record.notificationUUID)")
        }
        return .applied
    }
}

@Suite struct HandOffTests {
    @Test func handOffSeesEachNewRecordOnceAndCommitsWithIt() throws {
        let directory = try TemporaryDirectory()
        let handOff = RecordingHandOff()
        let store = try Store(path: directory.databasePath, handOff: handOff)
        let uuids = (0..<50).map { "n\($0 % 40)" }  // ten repeats

        concurrently(uuids.count, threads: 25) { index in _ = try? store.store(makeRecord(uuids[index])) }
        store.close()

        #expect(handOff.calls.all.sorted() == Set(uuids).sorted())
        let logged = try rawQuery(directory.databasePath, "SELECT uuid FROM hand_off_log ORDER BY uuid")
        #expect(logged.compactMap { $0[0].textValue } == Set(uuids).sorted())
        let states = try rawQuery(directory.databasePath, "SELECT DISTINCT state FROM notifications")
        #expect(states == [[.text("applied")]])
    }

    /// A copy that takes up a held notification is stored in its place as it was received, the
    /// held row's other bytes gone; when its hand-off throws, it is stored failed there all the same.
    @Test(arguments: [false, true])
    func anAcceptedCopyReplacesTheHeldRow(failing: Bool) throws {
        struct AcceptedFails: NotificationHandOff {
            let failing: Bool
            func handOff(_ record: NotificationRecord, in transaction: WriteTransaction) throws -> NotificationState {
                if failing, record.state == .received { throw TestFailure(description: "boom") }
                return record.state == .received ? .applied : record.state
            }
        }
        let directory = try TemporaryDirectory()
        let store = try Store(path: directory.databasePath, handOff: AcceptedFails(failing: failing))
        defer { store.close() }
        var held = makeRecord("u", appId: "other", receivedAt: 1_700_000_000_000)
        (held.state, held.stateReason, held.signedPayload) = (.held, "bundleId", "eyJhbGciOiJFUzI1NiJ9.b3RoZXI.c2ln")
        #expect(try store.store(held) == .stored)
        let copy = makeRecord("u", appId: "demo", receivedAt: 1_700_000_100_000)
        #expect(try store.store(copy) == .takenUp)
        let row = try #require(try store.notification(uuid: "u"))
        #expect((row.appId, row.signedPayload, row.receivedAt) == ("demo", copy.signedPayload, copy.receivedAt))
        #expect(row.state == (failing ? .failed : .applied))
        #expect(failing == (row.stateReason?.hasPrefix("hand-off failed") == true), "\(row.stateReason ?? "")")
        #expect(try store.store(copy) == .duplicate)
        #expect(try store.store(held) == .duplicate)
    }

    @Test func throwingHandOffMarksOnlyThatRecordFailedAndKeepsIt() throws {
        let directory = try TemporaryDirectory()
        let store = try Store(path: directory.databasePath, handOff: RecordingHandOff(failing: ["b"]))
        defer { store.close() }
        let results = Collected<(String, StoreOutcome)>()

        concurrently(3, threads: 3) { index in
            let uuid = ["a", "b", "c"][index]
            if let outcome = try? store.store(makeRecord(uuid)) { results.append((uuid, outcome)) }
        }

        #expect(results.all.map(\.1) == [.stored, .stored, .stored])
        let failed = try #require(try store.notification(uuid: "b"))
        #expect(failed.state == .failed)
        #expect(failed.stateReason == "hand-off failed: boom b")
        #expect(failed.signedPayload == makeRecord("b").signedPayload)
        #expect(try store.notification(uuid: "a")?.state == .applied)
        #expect(try store.notification(uuid: "c")?.state == .applied)
        let logged = try rawQuery(directory.databasePath, "SELECT uuid FROM hand_off_log ORDER BY uuid")
        #expect(logged == [[.text("a")], [.text("c")]])
    }

    /// A batch writes its notifications without savepoints; one failing hand-off sends the whole
    /// batch back to be applied item by item. Every other notification must still be applied
    /// once (the log's primary key would fail a hand-off whose first attempt had stayed), and
    /// the failing one kept as failed, duplicates in the same batch included.
    @Test func aFailingHandOffInABatchLeavesTheOthersAppliedOnce() throws {
        let directory = try TemporaryDirectory()
        let store = try Store(path: directory.databasePath, handOff: RecordingHandOff(failing: ["n7"]))
        let uuids = (0..<60).map { "n\($0 % 48)" }  // twelve repeats, in the same batches or not

        concurrently(uuids.count, threads: 30) { index in _ = try? store.store(makeRecord(uuids[index])) }
        store.close()

        let states = try rawQuery(directory.databasePath, "SELECT notification_uuid, state FROM notifications")
        let byUUID = Dictionary(
            uniqueKeysWithValues: states.compactMap { row in
                row[0].textValue.flatMap { uuid in row[1].textValue.map { (uuid, $0) } }
            })
        #expect(byUUID.count == 48)
        #expect(byUUID["n7"] == "failed")
        #expect(byUUID.filter { $0.value == "applied" }.count == 47)
        let logged = try rawQuery(directory.databasePath, "SELECT uuid FROM hand_off_log ORDER BY uuid")
        #expect(logged.compactMap { $0[0].textValue } == Set(uuids).subtracting(["n7"]).sorted())
    }

    struct CommittingHandOff: NotificationHandOff {
        func handOff(_ record: NotificationRecord, in transaction: WriteTransaction) throws -> NotificationState {
            try transaction.execute("COMMIT")
            return .applied
        }
    }

    @Test func handOffCannotEndTheWritersTransaction() throws {
        let directory = try TemporaryDirectory()
        let store = try Store(path: directory.databasePath, handOff: CommittingHandOff())
        defer { store.close() }

        #expect(try store.store(makeRecord("a")) == .stored)
        let record = try #require(try store.notification(uuid: "a"))
        #expect(record.state == .failed)
        #expect(record.stateReason?.contains("the writer owns the transaction") == true)
    }

    struct RunningHandOff: NotificationHandOff {
        let sql: String
        func handOff(_ record: NotificationRecord, in transaction: WriteTransaction) throws -> NotificationState {
            try transaction.execute(sql)
            return .applied
        }
    }

    /// Transaction control is recognised by its first word in any case and after any spacing or comment;
    /// other words that merely start the same way, and everything else, run.
    @Test(arguments: [
        ("commit", "COMMIT"), ("  Begin immediate", "BEGIN"), ("\n\tROLLBACK TO item", "ROLLBACK"),
        ("savepoint other", "SAVEPOINT"), ("Release item", "RELEASE"), ("end", "END"),
        // PostgreSQL's other words for it.
        ("abort", "ABORT"), ("Start transaction", "START"), ("PREPARE TRANSACTION 'x'", "PREPARE"),
        // SQLite skips comments before the first word: so does the check.
        ("-- note\nCOMMIT", "COMMIT"), ("/* x */ ROLLBACK", "ROLLBACK"), ("/* a */ -- b\n /**/end", "END"),
    ])
    func handOffTransactionControlIsRefusedInAnyCase(sql: String, keyword: String) throws {
        let directory = try TemporaryDirectory()
        let store = try Store(path: directory.databasePath, handOff: RunningHandOff(sql: sql))
        defer { store.close() }

        #expect(try store.store(makeRecord("a")) == .stored)
        let record = try #require(try store.notification(uuid: "a"))
        #expect(record.state == .failed)
        #expect(record.stateReason?.contains("\(keyword) inside a hand-off: the writer owns the transaction") == true)
    }

    @Test(arguments: ["  select 1 AS beginning, 2 AS ending", "/* COMMIT */ SELECT 1", "-- ROLLBACK\nSELECT 2"])
    func handOffStatementsThatOnlyLookLikeControlRun(sql: String) throws {
        let directory = try TemporaryDirectory()
        let store = try Store(path: directory.databasePath, handOff: RunningHandOff(sql: sql))
        defer { store.close() }

        #expect(try store.store(makeRecord("a")) == .stored)
        #expect(try store.notification(uuid: "a")?.state == .applied)
    }
}

/// A notification verified for an app that a reload removed before the writer took it up.
@Suite struct RemovedAppHandOffTests {
    /// It is stored failed, saying why, with nothing applied: a start or reload that has the app
    /// again applies it (the pass over failed notifications), where `received` would be left for good.
    @Test func itIsStoredFailedAndNothingIsApplied() throws {
        let directory = try TemporaryDirectory()
        let store = try Store(path: directory.databasePath, handOff: LedgerHandOff(app: { _ in nil }))
        defer { store.close() }
        let transaction = StoreUnderTest.transaction(
            "100", original: "100", purchase: StoreUnderTest.t0, expires: StoreUnderTest.t0 + StoreUnderTest.day,
            customer: StoreUnderTest.customer(1))
        let record = try StoreUnderTest.record(
            .subscribed, .initialBuy, uuid: "sub-100", at: StoreUnderTest.t0, transaction: transaction)
        #expect(try store.store(record) == .stored)
        let stored = try #require(try store.notification(uuid: "sub-100"))
        #expect(stored.state == .failed)
        #expect(stored.stateReason?.contains("app \"demo\" is no longer configured") == true, "\(stored.stateReason ?? "")")
        #expect(try store.notificationUUIDs(state: .failed) == ["sub-100"])
        let applied = try rawQuery(directory.databasePath, "SELECT count(*) FROM applied_inputs")
        #expect(applied == [[.integer(0)]])
    }
}
