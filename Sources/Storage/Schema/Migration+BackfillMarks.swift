// Migration 26: how far each app's notification history has been read.

extension Migration {
    /// `backfill_marks`: per app and environment, the time (UNIX ms) up to which Apple's
    /// notification history has been read through by a backfill that completed. The next
    /// backfill starts there (less the margin), not at the newest notification stored: a push
    /// that arrives after an outage must not hide the notifications the outage missed.
    /// Operational state, as `deliveries`: replay keeps it.
    static let v26 = Migration(
        version: 26,
        name: "backfill marks",
        sql: """
            CREATE TABLE backfill_marks (
                app_id TEXT NOT NULL,
                environment TEXT NOT NULL,
                read_through INTEGER NOT NULL,
                updated_at INTEGER NOT NULL,
                PRIMARY KEY (app_id, environment)
            ) STRICT;
            """)
}
