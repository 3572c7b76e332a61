/// Event positions: `/v1/events` consumers hold one as their cursor, so no new event may take a
/// position a consumer may have passed: not after a replay that made the newest events no more,
/// nor across a restore.
enum EventPositions {
    /// How far a backup's positions move when the database it replaces cannot be read: more
    /// events than any database gained since its backup.
    static let unknownGrowth: Int64 = 1 << 32

    /// The highest position given so far: the highest event's, or the floor of positions gone
    /// (`event_position_floor`, migration 28), whichever is higher.
    static let highestSQL = "SELECT coalesce(max(p), 0) FROM \(given)"

    /// The position of the next event: one past `highestSQL`.
    static let nextSQL = "SELECT coalesce(max(p), 0) + 1 FROM \(given)"

    /// The highest event's position and the floor, as rows of `p`.
    private static let given =
        "(SELECT max(position) AS p FROM events UNION ALL SELECT position FROM event_position_floor) AS given"

    /// The floor alone; 0 without one.
    static let floorSQL = "SELECT coalesce(max(position), 0) FROM event_position_floor"

    /// Raises the floor to the argument; never lowers it.
    static let raiseFloorSQL = """
        INSERT INTO event_position_floor (id, position) VALUES (1, ?)
        ON CONFLICT (id) DO UPDATE SET position = CASE WHEN excluded.position > event_position_floor.position
            THEN excluded.position ELSE event_position_floor.position END
        """

    /// The highest position given in the database at `connection`; 0 without events: its
    /// events', its floor's, and its deliveries' (which hold positions of events a replay made
    /// no more, in a database from before migration 28, which has no floor).
    static func highest(in connection: SQLiteConnection) throws(StoreError) -> Int64 {
        let hasFloor = try !connection.query(
            "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'event_position_floor'", []
        ).isEmpty
        let given = try connection.query(hasFloor ? highestSQL : "SELECT coalesce(max(position), 0) FROM events", [])
        let delivered = try connection.query("SELECT coalesce(max(position), 0) FROM deliveries", [])
        return max(given.first?.first?.integerValue ?? 0, delivered.first?.first?.integerValue ?? 0)
    }

    /// Moves the events and deliveries of the database at `connection` (a restore's staging copy)
    /// up, in their order, so that its highest position is at least `replaced`, the highest of the
    /// database it replaces (nil when that cannot be read: then by `unknownGrowth`). New events
    /// then come after every cursor a consumer holds. A consumer whose cursor came from the
    /// replaced database skips nothing it had not read (a backup's events held the same
    /// positions there), and reads again at most the events the move put past its cursor (the
    /// same ids: at least once). Returns how far positions moved.
    @discardableResult
    static func moveUp(toReach replaced: Int64?, in connection: SQLiteConnection) throws(StoreError) -> Int64 {
        let highest = try highest(in: connection)
        let shift = replaced.map { max($0 - highest, 0) } ?? unknownGrowth
        guard shift > 0 else { return 0 }
        _ = try connection.run("BEGIN IMMEDIATE", [])
        do {
            // Through negative values: SQLite checks the unique index row by row, and a
            // position moved up may meet one not moved yet.
            for table in ["events", "deliveries"] {
                _ = try connection.run("UPDATE \(table) SET position = -(position + ?) WHERE position > 0", [.integer(shift)])
                _ = try connection.run("UPDATE \(table) SET position = -position WHERE position < 0", [])
            }
            // The floor too, made here in a backup an older build took: a backup with no events
            // (or whose newest are gone) has nothing else to carry the moved highest position.
            try connection.execute(script: Migration.v28.sql)
            _ = try connection.run(raiseFloorSQL, [.integer(highest + shift)])
            _ = try connection.run("COMMIT", [])
        } catch {
            _ = try? connection.run("ROLLBACK", [])
            throw error
        }
        return shift
    }
}
