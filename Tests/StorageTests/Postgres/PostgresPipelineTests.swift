import Foundation
import Synchronization
import Testing

@_spi(StoreSQL) @testable import Storage

/// Statements sent ahead without waiting (`PostgresConnection.send`, libpq's pipeline mode):
/// they run in order, later reads see them, and a failure among them is thrown by the next
/// statement that waits, failing the transaction as it would have at once.
@Suite(.enabled(if: PostgresTestDatabase.isAvailable)) struct PostgresPipelineTests {
    @Test func sentStatementsRunInOrderAndTheNextReadSeesThem() throws {
        let database = try PostgresTestDatabase()
        let connection = try database.connect()
        try connection.execute(script: "CREATE TABLE p (k BIGINT PRIMARY KEY, v TEXT)")
        try connection.execute(script: "BEGIN")
        // More than one pipeline's depth: the answers are read on the way.
        let count = PostgresConnection.pipelineDepth * 2 + 10
        for index in 0..<count {
            try connection.send("INSERT INTO p (k, v) VALUES (?, ?)", [.integer(Int64(index)), .text("a")])
        }
        try connection.send("UPDATE p SET v = ? WHERE k = ?", [.text("b"), .integer(3)])
        #expect(connection.isInTransaction)
        #expect(try connection.query("SELECT count(*), max(v) FROM p") == [[.integer(Int64(count)), .text("b")]])
        // Many lookups in one round trip (more than a pipeline holds: in two), each its own rows.
        let keys = (0..<(PostgresConnection.pipelineDepth + 40)).map { Int64($0 * 2) }
        let found = try connection.queryAll(keys.map { ("SELECT k FROM p WHERE k = ?", [.integer($0)]) })
        #expect(found == keys.map { $0 < Int64(count) ? [[.integer($0)]] : [] })
        // Different queries, none prepared yet, behind a write sent ahead: each its own answer.
        try connection.send("UPDATE p SET v = ? WHERE k = ?", [.text("c"), .integer(4)])
        let mixed = try connection.queryAll([
            ("SELECT v FROM p WHERE k = ?", [.integer(4)]), ("SELECT count(*) FROM p WHERE v = ?", [.text("b")]),
            ("SELECT k FROM p WHERE k < ? ORDER BY k", [.integer(2)]),
        ])
        #expect(mixed == [[[.text("c")]], [[.integer(1)]], [[.integer(0)], [.integer(1)]]])
        try connection.execute(script: "COMMIT")
        #expect(!connection.isInTransaction)
        #expect(try connection.run("DELETE FROM p WHERE k < ?", [.integer(10)]) == 10)
    }

    /// Queries sent ahead (`sendQuery`) are answered in the round trip of the next statement that
    /// waits, each with its own rows; a drain on the way (a full pipeline) answers those before
    /// it. Behind a failure, none is answered.
    @Test func queriesSentAheadAreAnsweredByTheNextWait() throws {
        let database = try PostgresTestDatabase()
        let connection = try database.connect()
        try connection.execute(script: "CREATE TABLE p (k BIGINT PRIMARY KEY, v TEXT)")
        // Prepared first: preparing waits, and would read the pipeline on the way.
        #expect(try connection.query("SELECT v FROM p WHERE k = ?", [.integer(1)]).isEmpty)
        #expect(try connection.query("SELECT count(*) FROM p") == [[.integer(0)]])
        try connection.execute(script: "BEGIN")
        try connection.send("INSERT INTO p (k, v) VALUES (?, ?)", [.integer(1), .text("a")])
        let keys = (0..<(PostgresConnection.pipelineDepth + 3)).map { Int64($0) }
        let roundTrips = connection.roundTrips
        let answers = try keys.map { (key) throws(StoreError) in
            try connection.sendQuery("SELECT v FROM p WHERE k = ?", [.integer(key)])
        }
        #expect(connection.roundTrips == roundTrips + 1, "a full pipeline is read on the way")
        #expect(answers[0].rows == [] && answers[1].rows == [[.text("a")]])
        #expect(answers.last?.rows == nil)
        #expect(try connection.queryAll([("SELECT count(*) FROM p", [])]) == [[[.integer(1)]]])
        #expect(connection.roundTrips == roundTrips + 2)
        #expect(
            try answers.map { (answer) throws(StoreError) in try answer.answer("k") }
                == keys.map { $0 == 1 ? [[.text("a")]] : [] })

        let behindFailure = try connection.sendQuery("SELECT v FROM p WHERE k = ?", [.integer(1)])
        try connection.send("INSERT INTO p (k, v) VALUES (?, ?)", [.integer(1), .text("again")])
        let afterFailure = try connection.sendQuery("SELECT v FROM p WHERE k = ?", [.integer(1)])
        #expect(throws: StoreError.self) { try connection.flushSent() }
        #expect(behindFailure.rows == [[.text("a")]])
        let unanswered = #expect(throws: StoreError.self) { try afterFailure.answer("the lookup") }
        #expect(unanswered?.message == "the lookup was not answered")
        try connection.execute(script: "ROLLBACK")
    }

    @Test func aFailureSentAheadIsThrownByTheNextWaitAndFailsTheTransaction() throws {
        let database = try PostgresTestDatabase()
        let connection = try database.connect()
        try connection.execute(script: "CREATE TABLE p (k BIGINT PRIMARY KEY)")
        try connection.execute(script: "BEGIN")
        try connection.send("INSERT INTO p (k) VALUES (?)", [.integer(1)])
        try connection.send("INSERT INTO p (k) VALUES (?)", [.integer(1)])
        try connection.send("INSERT INTO p (k) VALUES (?)", [.integer(2)])
        let failure = #expect(throws: StoreError.self) { try connection.query("SELECT count(*) FROM p") }
        #expect(failure?.code == .invalid)
        #expect(failure?.message.contains("SQLSTATE 23505") == true, "\(String(describing: failure))")
        #expect(connection.isInTransaction)
        // PostgreSQL answers its COMMIT by rolling back; that is a failure here.
        #expect(throws: StoreError.self) { try connection.execute(script: "COMMIT") }
        if connection.isInTransaction { try connection.execute(script: "ROLLBACK") }
        #expect(try connection.query("SELECT count(*) FROM p") == [[.integer(0)]])
        // A commit sent behind a failed statement fails too, and commits nothing.
        try connection.execute(script: "BEGIN")
        try connection.send("INSERT INTO p (k) VALUES (?)", [.integer(5)])
        try connection.send("INSERT INTO p (k) VALUES (?)", [.text("not a number")])
        #expect(throws: StoreError.self) { try connection.run("COMMIT") }
        if connection.isInTransaction { try connection.execute(script: "ROLLBACK") }
        #expect(try connection.query("SELECT count(*) FROM p") == [[.integer(0)]])
    }

    /// A hand-off whose write, sent ahead, fails: in the batch it fails the transaction, the
    /// writer applies each item alone, and only that notification is stored `failed`, with the
    /// database's reason; the others are applied once.
    @Test func aHandOffWriteThatFailsLaterFailsOnlyItsNotification() throws {
        let database = try PostgresTestDatabase()
        let store = try Store(postgres: database.url, handOff: SendingHandOff(failing: "n7"))
        defer { store.close() }
        let setup = try database.connect()
        try setup.execute(script: "CREATE TABLE hand_off_log (uuid TEXT PRIMARY KEY, n BIGINT NOT NULL CHECK (n >= 0))")
        let outcomes = Mutex<[String: StoreOutcome]>([:])
        let done = DispatchGroup()
        for index in 0..<20 {
            done.enter()
            store.store(makeRecord("n\(index)")) { result in
                if case .success(let outcome) = result { outcomes.withLock { $0["n\(index)"] = outcome } }
                done.leave()
            }
        }
        done.wait()
        #expect(outcomes.withLock { $0.count } == 20)
        for index in 0..<20 {
            let stored = try #require(try store.notification(uuid: "n\(index)"))
            #expect(stored.state == (index == 7 ? .failed : .applied), "n\(index)")
        }
        #expect(try store.notification(uuid: "n7")?.stateReason?.contains("SQLSTATE 23514") == true)
        #expect(try setup.query("SELECT count(*) FROM hand_off_log") == [[.integer(19)]])
    }

    /// Copies in one batch, and of notifications stored before: each is stored once, whatever its
    /// UUID holds (the batch asks which are stored in one statement, an array of them).
    @Test func copiesInABatchAreDuplicatesWhateverTheirUUIDHolds() throws {
        let database = try PostgresTestDatabase()
        let store = try Store(postgres: database.url)
        defer { store.close() }
        let uuids = [#"a"b"#, #"c\d"#, "{e,f}", "plain", "NULL"]
        #expect(try store.store(makeRecord("plain")) == .stored)
        let outcomes = Mutex<[String: [StoreOutcome]]>([:])
        let done = DispatchGroup()
        for uuid in uuids + uuids {
            done.enter()
            store.store(makeRecord(uuid)) { result in
                if case .success(let outcome) = result { outcomes.withLock { $0[uuid, default: []].append(outcome) } }
                done.leave()
            }
        }
        done.wait()
        for uuid in uuids {
            let got = outcomes.withLock { $0[uuid] ?? [] }
            #expect(
                got.sorted { "\($0)" < "\($1)" } == (uuid == "plain" ? [.duplicate, .duplicate] : [.duplicate, .stored]),
                "\(uuid)")
            #expect(try store.notification(uuid: uuid)?.notificationUUID == uuid)
        }
        #expect(try store.notifications(NotificationFilter(limit: 100)).count == uuids.count)
    }

    /// Logs each notification with a write sent ahead; for `failing`, one the table refuses.
    struct SendingHandOff: NotificationHandOff {
        let failing: String
        func handOff(_ record: NotificationRecord, in transaction: WriteTransaction) throws -> NotificationState {
            try transaction.write(
                "INSERT INTO hand_off_log (uuid, n) VALUES (?, ?)",
                [.text(record.notificationUUID), .integer(record.notificationUUID == failing ? -1 : 1)])
            return .applied
        }
    }
}
