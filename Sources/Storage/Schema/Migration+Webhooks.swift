// Migration 23: deliveries per webhook.

extension Migration {
    /// `deliveries` keyed by event and webhook, for apps with several webhooks: the table is
    /// rebuilt with a `webhook` column (its id in the app's `webhooks`; `''` for the first,
    /// unnamed one, which every existing row is for) in the primary key, and the pending index
    /// leads with it, so each webhook's worker walks only its own rows.
    static let v23 = Migration(
        version: 23,
        name: "webhook deliveries per webhook",
        sql: """
            CREATE TABLE deliveries_per_webhook (
                event_id TEXT NOT NULL,
                webhook TEXT NOT NULL DEFAULT '',
                app_id TEXT NOT NULL,
                customer TEXT,
                position INTEGER NOT NULL,
                status TEXT NOT NULL CHECK (status = 'pending' OR status = 'delivered' OR status = 'dead'),
                attempts INTEGER NOT NULL DEFAULT 0,
                next_attempt_at INTEGER NOT NULL,
                created_at INTEGER NOT NULL,
                delivered_at INTEGER,
                last_status INTEGER,
                last_error TEXT,
                PRIMARY KEY (event_id, webhook)
            ) STRICT;
            INSERT INTO deliveries_per_webhook
                SELECT event_id, '', app_id, customer, position, status, attempts, next_attempt_at, created_at,
                       delivered_at, last_status, last_error
                FROM deliveries;
            DROP TABLE deliveries;
            ALTER TABLE deliveries_per_webhook RENAME TO deliveries;
            CREATE INDEX deliveries_pending ON deliveries (app_id, webhook, status, position);
            CREATE INDEX deliveries_by_status ON deliveries (status, created_at);
            """)
}
