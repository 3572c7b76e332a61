// Migration 28: event positions a consumer may have passed, kept when their events are gone.

extension Migration {
    /// `event_position_floor`: one row, the highest position an event held that may be gone now.
    /// A `/v1/events` consumer may hold any position an event ever had as its cursor, but the
    /// newest events are not always there to say how far positions went: a replay under changed
    /// code or configuration can make the newest of them no more. A new event takes the next
    /// position after both the highest event's and this one (`Outbox.insert`); replay and
    /// restore raise it (`EventPositions`). `IF NOT EXISTS`: a restore makes it in a backup an
    /// older build took before that backup is migrated. The same table on PostgreSQL
    /// (`PostgresSchema.later`).
    static let v28 = Migration(
        version: 28,
        name: "event position floor",
        sql: """
            CREATE TABLE IF NOT EXISTS event_position_floor (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                position INTEGER NOT NULL
            ) STRICT;
            \(eventPositionFloorSeed)
            """)

    /// The floor a database from before migration 28 starts with: the highest position its
    /// deliveries hold. Replay keeps the deliveries of events it made no more, so a position an
    /// older build's replay took away from the newest events is still there, for an app with a
    /// webhook.
    static let eventPositionFloorSeed = """
        INSERT INTO event_position_floor (id, position)
        SELECT 1, highest FROM (SELECT max(position) AS highest FROM deliveries) AS given WHERE highest IS NOT NULL
        ON CONFLICT (id) DO NOTHING;
        """
}
