// Migration 27: an app's events in position order.

extension Migration {
    /// `events_by_app`: the `/v1/events` feed reads an app's events after its cursor in position
    /// order (`EventRows.page`). Without it, a poll read every event the app ever had through
    /// `events_by_customer` and sorted them, or (on the position index) every other app's
    /// events after the cursor. The same statement on PostgreSQL (`PostgresSchema.later`).
    static let v27 = Migration(
        version: 27,
        name: "events by app",
        sql: """
            CREATE INDEX events_by_app ON events (app_id, position);
            """)
}
