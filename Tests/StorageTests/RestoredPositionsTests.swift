import Foundation
import Subscriptions
import Testing

@_spi(StoreSQL) @testable import Storage

/// A restore moves event positions (the `/v1/events` cursor) past those of the database it
/// replaces: a consumer's cursor from before never hides an event made after.
@Suite("Event positions across a restore")
struct RestoredPositionsTests {
    /// A database at `path` with `count` events, each with a pending delivery, at positions 1...count.
    static func database(_ path: String, events count: Int, prefix: String) throws {
        let store = try Store(path: path)
        defer { store.close() }
        try store.write { transaction in
            for position in 1...Int64(count) {
                try transaction.execute(
                    "INSERT INTO events (id, app_id, customer, sequence, type, json, created_at, position) VALUES (?, 'demo', 'c', ?, 'RENEWAL', '{}', 0, ?)",
                    [.text("\(prefix)\(position)"), .integer(position), .integer(position)])
                try transaction.execute(
                    "INSERT INTO deliveries (event_id, app_id, customer, position, status, next_attempt_at, created_at) VALUES (?, 'demo', 'c', ?, 'pending', 0, 0)",
                    [.text("\(prefix)\(position)"), .integer(position)])
            }
        }
    }

    /// Event id → position, and delivery event id → position, of the database at `path`.
    static func positions(_ path: String) throws -> (events: [String: Int64], deliveries: [String: Int64]) {
        let reader = try StoreReader(path: path)
        defer { reader.close() }
        return try reader.read { (rows) throws(StoreError) in
            var events: [String: Int64] = [:]
            var deliveries: [String: Int64] = [:]
            for row in try rows.query("SELECT id, position FROM events", []) {
                events[row[0].textValue ?? ""] = row[1].integerValue
            }
            for row in try rows.query("SELECT event_id, position FROM deliveries", []) {
                deliveries[row[0].textValue ?? ""] = row[1].integerValue
            }
            return (events, deliveries)
        }
    }

    @Test(arguments: [
        // The replaced database got further than the backup: the backup's events move up to end where it ended.
        (5, 3, Int64(2)),
        // It had no more: nothing moves.
        (3, 3, Int64(0)),
        (1, 3, Int64(0)),
    ])
    func positionsContinuePastTheReplacedDatabase(live: Int, backup: Int, shift: Int64) throws {
        let directory = try TemporaryDirectory()
        let database = directory.databasePath
        let copy = directory.path + "/backup.sqlite"
        try Self.database(copy, events: backup, prefix: "e")
        try Self.database(database, events: live, prefix: "e")
        _ = try DatabaseBackup.restore(copy, to: database, at: Date())
        let (events, deliveries) = try Self.positions(database)
        let expected = Dictionary(uniqueKeysWithValues: (1...Int64(backup)).map { ("e\($0)", $0 + shift) })
        #expect(events == expected)
        #expect(deliveries == expected)
        // The next event comes after every position the replaced database gave.
        #expect(try Self.nextPosition(database) == Int64(max(live, backup) + 1))
    }

    /// A backup with no events, restored over a database that gave positions 1...3: the next
    /// event still comes after 3 (the floor carries what no event does).
    @Test func aBackupWithoutEventsContinuesPastTheReplacedDatabase() throws {
        let directory = try TemporaryDirectory()
        let copy = directory.path + "/backup.sqlite"
        try Store(path: copy).close()
        try Self.database(directory.databasePath, events: 3, prefix: "e")
        _ = try DatabaseBackup.restore(copy, to: directory.databasePath, at: Date())
        #expect(try Self.nextPosition(directory.databasePath) == 4)
    }

    /// The position the next event takes in the database at `path` (opened, so migrated).
    static func nextPosition(_ path: String) throws -> Int64? {
        let store = try Store(path: path)
        defer { store.close() }
        try store.write { transaction in
            try Outbox.insert(Event(type: .renewal, id: "new"), appId: "demo", at: 1, webhooks: [], in: transaction)
        }
        return try positions(path).events["new"]
    }

    /// `path` as a build before migration 28 left it: no floor table (nor the later settings).
    static func makeOlder(_ path: String) throws {
        try rawExecute(path, "DROP TABLE event_position_floor")
        try rawExecute(path, "DROP TABLE database_settings")
        try rawExecute(path, "ALTER TABLE posted_transactions DROP COLUMN presented_offering_id")
        try rawExecute(path, "DROP INDEX deliveries_pending_by_customer")
        try rawExecute(path, "DELETE FROM schema_migrations WHERE version >= 28")
    }

    /// A backup an older build took, with no events, restored over an older database whose
    /// newest events a replay made no more (their deliveries hold positions up to 5): the restore
    /// makes the floor in the copy, migration 28 then takes it as it is, and the next event comes
    /// after 5.
    @Test func anOlderBackupOverAnOlderDatabaseContinuesPastItsDeliveries() throws {
        let directory = try TemporaryDirectory()
        let copy = directory.path + "/backup.sqlite"
        try Store(path: copy).close()
        try Self.makeOlder(copy)
        try Self.database(directory.databasePath, events: 5, prefix: "e")
        try rawExecute(directory.databasePath, "DELETE FROM events WHERE position > 3")
        try Self.makeOlder(directory.databasePath)
        _ = try DatabaseBackup.restore(copy, to: directory.databasePath, at: Date())
        #expect(try Self.nextPosition(directory.databasePath) == 6)
    }

    /// Migration 28 on a database whose newest events a replay made no more: the floor starts at
    /// the highest position its deliveries hold, so the next event is not given one again.
    @Test func migration28SeedsTheFloorFromDeliveries() throws {
        let directory = try TemporaryDirectory()
        try Self.database(directory.databasePath, events: 5, prefix: "e")
        try rawExecute(directory.databasePath, "DELETE FROM events WHERE position > 3")
        try Self.makeOlder(directory.databasePath)
        #expect(try Self.nextPosition(directory.databasePath) == 6)
    }

    /// A replaced database that cannot be read: positions move by more than any database grows.
    @Test func anUnreadableReplacedDatabaseMovesPositionsFarUp() throws {
        let directory = try TemporaryDirectory()
        let copy = directory.path + "/backup.sqlite"
        try Self.database(copy, events: 2, prefix: "e")
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: directory.databasePath))
        _ = try DatabaseBackup.restore(copy, to: directory.databasePath, at: Date())
        #expect(try Self.positions(directory.databasePath).events == ["e1": 1 + (1 << 32), "e2": 2 + (1 << 32)])
    }
}
