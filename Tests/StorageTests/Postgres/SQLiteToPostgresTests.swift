import AppStore
import Foundation
import Testing
import Threads

@testable import Storage

/// `revenuedot migrate-db`: a SQLite database copied into an empty PostgreSQL one reads the same.
@Suite(.enabled(if: PostgresTestDatabase.isAvailable)) struct SQLiteToPostgresTests {
    typealias S = StoreUnderTest

    /// Two customers' subscriptions, a renewal, a delivery recorded, a timer fired and a reject.
    static func source() throws -> StoreUnderTest {
        let under = try StoreUnderTest(.sqlite)
        let expires = S.t0 + 30 * S.day
        try under.subscribe(1, original: "100", expires: expires, autoRenew: false)
        try under.subscribe(2, original: "200")
        let renewal = S.transaction(
            "200-1", original: "200", purchase: expires, expires: expires + 30 * S.day, customer: S.customer(2))
        _ = try under.store.store(S.record(.didRenew, uuid: "renew-200-1", at: expires, transaction: renewal))
        try under.write { transaction in
            let due = try Deliveries.due(appId: S.appId, nowMs: expires, limit: 1, inFlight: [], from: transaction)
            for delivery in due {
                try Deliveries.record(
                    .delivered(status: 200), of: delivery, retryDelaysSeconds: [1], at: expires, in: transaction)
            }
            for timer in try PendingTimers.due(atMs: expires + 1, limit: 10, from: transaction) {
                try LedgerInputs.keepAndApply(.dueTimer(timer), app: S.app, atMs: expires + 1, in: transaction)
            }
        }
        under.store.recordReject(Reject(appId: S.appId, status: "401", reason: "bad signature", at: S.t0))
        return under
    }

    static func everything(_ store: Store) throws -> [String] {
        let notifications = try store.notifications(NotificationFilter(limit: 100)).map {
            "\($0.notificationUUID) \($0.state) \($0.signedPayload) \($0.transaction?.json ?? "")"
        }
        let events = try store.read { (rows) throws(StoreError) in
            try EventRows.list(EventFilter(appId: S.appId, limit: 100), from: rows).map {
                "\($0.position) \($0.id) \($0.json) \($0.deliveryStatus ?? "-") \($0.attempts)"
            }
        }
        let rejects = try store.rejectLog().recent.map { "\($0.status) \($0.reason)" }
        return notifications + events + rejects
    }

    @Test func everyRowIsCopiedAndReadsTheSame() throws {
        let source = try Self.source()
        let expected = try Self.everything(source.store)
        source.store.close()
        let database = try PostgresTestDatabase()
        let report = try SQLiteToPostgres.copy(from: source.directory.databasePath, to: database.url)
        let rows = Dictionary(uniqueKeysWithValues: report.tables.map { ($0.name, $0.rows) })
        #expect(rows["notifications"] == 3)
        #expect(rows["events"] ?? 0 >= 4)
        #expect(rows["deliveries"] == rows["events"])
        #expect(rows["rejects"] == 1)
        #expect(rows["applied_inputs"] == 4)

        let target = try Store(postgres: database.url, handOff: LedgerHandOff(app: { $0 == S.appId ? S.app : nil }))
        defer { target.close() }
        #expect(try Self.everything(target) == expected)
        // Identity columns go on after the copied ones: a new notification is stored.
        let bought = S.transaction("300", original: "300", purchase: S.t0, expires: S.t0 + S.day, customer: S.customer(3))
        #expect(
            try target.store(
                S.record(
                    .subscribed, .initialBuy, uuid: "sub-300", at: S.t0, transaction: bought,
                    renewal: S.renewal(original: "300", signed: S.t0))) == .stored)
    }

    /// Payloads compressed with a dictionary copy after it (their rows reference it) and read
    /// back from PostgreSQL as the exact JWS stored.
    @Test func payloadsStoredWithADictionaryCopyAndReadTheSame() throws {
        let directory = try TemporaryDirectory()
        var sent: [String: String] = [:]
        do {
            let store = try StoredPayloadTests.store(directory.databasePath)
            defer { store.close() }
            try StoredPayloadTests.storeSigned(12, by: try TestChain(name: "One"), prefix: "one", in: store, sent: &sent)
        }
        #expect(try StoredPayloadTests.rows(directory.databasePath).contains { $0.dictionary != nil })
        let database = try PostgresTestDatabase()
        let report = try SQLiteToPostgres.copy(from: directory.databasePath, to: database.url)
        #expect(report.tables.first { $0.name == "payload_dictionaries" }?.rows == 1)
        let target = try Store(postgres: database.url, handOff: KeepReceived())
        defer { target.close() }
        let read = try target.notifications(NotificationFilter(limit: 100))
        #expect(Dictionary(uniqueKeysWithValues: read.map { ($0.notificationUUID, $0.signedPayload) }) == sent)
    }

    /// A copy that fails partway (here at a late table: PostgreSQL text cannot hold the NUL a
    /// SQLite text may, and is refused rather than cut short; Ctrl-C stops a copy the same way)
    /// leaves nothing behind: copying again, once fixed, succeeds.
    @Test func aCopyThatFailsPartwayLeavesTheTargetEmpty() throws {
        let source = try Self.source()
        source.store.close()
        let raw = try SQLiteConnection(path: source.directory.databasePath, role: .writer)
        _ = try raw.run("UPDATE rejects SET reason = 'bad' || char(0) || 'signature'")
        let database = try PostgresTestDatabase()
        let error = #expect(throws: StoreError.self) {
            try SQLiteToPostgres.copy(from: source.directory.databasePath, to: database.url)
        }
        #expect(error?.message.hasPrefix("copying rejects: a text value holds a NUL character") == true)
        // Not even the schema, made in the same transaction: the database is as it was.
        let tables = try database.connect().query(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()")
        #expect(tables.first?.first?.integerValue == 0)
        _ = try raw.run("UPDATE rejects SET reason = 'bad signature'")
        let report = try SQLiteToPostgres.copy(from: source.directory.databasePath, to: database.url)
        #expect(report.tables.first { $0.name == "notifications" }?.rows == 3)
    }

    /// A node started on the empty target made choices of its own (`database_settings`): the
    /// copy's are the source's, under which its customers were named.
    @Test func theSourcesChoicesReplaceANodesOnTheEmptyTarget() throws {
        let source = try Self.source()
        let chosen = try AnonymousIdContractTests.setting(source.store)
        source.store.close()
        let database = try PostgresTestDatabase()
        let early = try Store(postgres: database.url, handOff: KeepReceived())
        let own = try AnonymousIdContractTests.setting(early)
        early.close()
        #expect(own.count == 1 && own != chosen)
        _ = try SQLiteToPostgres.copy(from: source.directory.databasePath, to: database.url)
        let target = try Store(postgres: database.url, handOff: KeepReceived())
        defer { target.close() }
        #expect(try AnonymousIdContractTests.setting(target) == chosen)
    }

    @Test func aTargetThatHoldsRowsIsRefusedAndLeftAsItIs() throws {
        let source = try Self.source()
        source.store.close()
        let database = try PostgresTestDatabase()
        _ = try SQLiteToPostgres.copy(from: source.directory.databasePath, to: database.url)
        let count = try database.connect().query("SELECT count(*) FROM notifications")
        let error = #expect(throws: StoreError.self) {
            try SQLiteToPostgres.copy(from: source.directory.databasePath, to: database.url)
        }
        #expect(error?.message.contains("already holds") == true, "\(error?.message ?? "")")
        #expect(try database.connect().query("SELECT count(*) FROM notifications") == count)
    }

    /// A source another process has (a server) is refused; the copy holds the source's lock
    /// itself, so no server starts on it meanwhile, and lets it go once done.
    @Test func aSourceInUseIsRefusedAndTheCopyHoldsItsLock() throws {
        let source = try Self.source()
        source.store.close()
        let path = source.directory.databasePath
        let database = try PostgresTestDatabase()
        let holder = try Store(path: path, exclusive: true)
        let error = #expect(throws: StoreError.self) { try SQLiteToPostgres.copy(from: path, to: database.url) }
        #expect(
            error?.message
                == "\(path) is in use by this process already (serve, replay, or a command such as import or backfill): "
                + "one process writes a database at a time; stop it first, so that nothing it stores is left behind",
            "\(error?.message ?? "")")
        holder.close()
        // While the copy runs, no server can have the source.
        var refusedMeanwhile: [String] = []
        _ = try SQLiteToPostgres.copy(from: path, to: database.url) { table in
            do { try Store(path: path, exclusive: true).close() } catch { refusedMeanwhile.append(table) }
        }
        #expect(!refusedMeanwhile.isEmpty && refusedMeanwhile.count == Set(refusedMeanwhile).count)
        #expect(refusedMeanwhile.contains("notifications"), "\(refusedMeanwhile)")
        #expect(DatabaseLock.holder(databasePath: path) == nil)
        try Store(path: path, exclusive: true).close()
    }
}
