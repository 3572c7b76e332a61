/// Event positions across a restore: `/v1/events` consumers hold a position as their cursor,
/// and a restored database must not give a position they have passed to a new event.
enum EventPositions {
    /// How far a backup's positions move when the database it replaces cannot be read: more
    /// events than any database gained since its backup.
    static let unknownGrowth: Int64 = 1 << 32

    /// The highest event position in the database at `connection`; 0 without events.
    static func highest(in connection: any StatementRunner) throws(StoreError) -> Int64 {
        try connection.query("SELECT coalesce(max(position), 0) FROM events", []).first?.first?.integerValue ?? 0
    }

    /// Moves the events and deliveries of the database at `connection` (a restore's staging copy)
    /// up, in their order, so that its highest position is at least `replaced`, the highest of the
    /// database it replaces (nil when that cannot be read: then by `unknownGrowth`). New events
    /// then come after every cursor a consumer holds. A consumer whose cursor came from the
    /// replaced database skips nothing it had not read (a backup's events held the same
    /// positions there), and reads again at most the events the move put past its cursor (the
    /// same ids: at least once). Returns how far positions moved.
    @discardableResult
    static func moveUp(toReach replaced: Int64?, in connection: any StatementRunner) throws(StoreError) -> Int64 {
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
            _ = try connection.run("COMMIT", [])
        } catch {
            _ = try? connection.run("ROLLBACK", [])
            throw error
        }
        return shift
    }
}
