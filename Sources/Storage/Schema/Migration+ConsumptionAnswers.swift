// Migration 19: the answers RevenueDot sends Apple's consumption requests.

extension Migration {
    /// `consumption_answers`: one row per CONSUMPTION_REQUEST notification RevenueDot answers (or
    /// decided not to), with its attempts, so an answer is sent once and retried until Apple
    /// takes it or the 12 hours Apple allows are over. Operational state, as `deliveries`:
    /// replay keeps it. The index holds consumption requests only: other notifications, the
    /// many, write no page of it.
    static let v19 = Migration(
        version: 19,
        name: "answers to consumption requests",
        sql: """
            CREATE TABLE consumption_answers (
                notification_uuid TEXT PRIMARY KEY,
                app_id TEXT NOT NULL,
                transaction_id TEXT NOT NULL,
                environment TEXT NOT NULL,
                requested_at INTEGER NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'failed', 'expired', 'skipped')),
                attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
                next_attempt_at INTEGER NOT NULL,
                request_json TEXT,
                last_error TEXT,
                answered_at INTEGER
            ) STRICT;
            CREATE INDEX consumption_answers_due ON consumption_answers (status, next_attempt_at);
            CREATE INDEX notifications_consumption_requests ON notifications (signed_date)
                WHERE notification_type = 'CONSUMPTION_REQUEST';
            """)
}
