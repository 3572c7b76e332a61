/// One versioned schema change, applied once in its own transaction and recorded in `schema_migrations`.
struct Migration: Sendable {
    /// Increasing from 1; never reused or renumbered once released.
    let version: Int64
    /// A short name for logs and errors.
    let name: String
    /// The statements to run.
    let sql: String

    /// Every migration this build knows, in order.
    static let all: [Migration] = [.v1]
}

// MARK: - Version 1

extension Migration {
    /// Notifications (raw payload kept forever), transaction and renewal snapshots, and the reject log.
    static let v1 = Migration(
        version: 1,
        name: "notifications, snapshots and reject log",
        sql: """
            CREATE TABLE notifications (
                id INTEGER PRIMARY KEY,
                notification_uuid TEXT NOT NULL UNIQUE,
                app_id TEXT NOT NULL,
                notification_type TEXT NOT NULL,
                subtype TEXT,
                environment TEXT,
                bundle_id TEXT,
                signed_date INTEGER,
                original_transaction_id TEXT,
                transaction_id TEXT,
                received_at INTEGER NOT NULL,
                state TEXT NOT NULL CHECK (state IN ('received', 'applied', 'held', 'failed')),
                state_reason TEXT,
                signed_payload TEXT NOT NULL
            ) STRICT;
            CREATE INDEX notifications_by_app ON notifications (app_id, received_at);
            CREATE INDEX notifications_by_state ON notifications (state, received_at);
            CREATE INDEX notifications_by_original_transaction ON notifications (original_transaction_id);
            CREATE INDEX notifications_by_received_at ON notifications (received_at);

            CREATE TABLE transactions (
                transaction_id TEXT PRIMARY KEY,
                original_transaction_id TEXT,
                product_id TEXT,
                environment TEXT,
                signed_date INTEGER,
                json TEXT NOT NULL,
                notification_uuid TEXT REFERENCES notifications (notification_uuid)
            ) STRICT;
            CREATE INDEX transactions_by_original_transaction ON transactions (original_transaction_id);

            CREATE TABLE renewal_snapshots (
                id INTEGER PRIMARY KEY,
                notification_uuid TEXT NOT NULL UNIQUE REFERENCES notifications (notification_uuid),
                original_transaction_id TEXT,
                product_id TEXT,
                environment TEXT,
                signed_date INTEGER,
                json TEXT NOT NULL
            ) STRICT;
            CREATE INDEX renewal_snapshots_by_original_transaction ON renewal_snapshots (original_transaction_id);

            CREATE TABLE rejects (
                id INTEGER PRIMARY KEY,
                app_id TEXT NOT NULL,
                status TEXT NOT NULL,
                reason TEXT NOT NULL,
                at INTEGER NOT NULL
            ) STRICT;

            CREATE TABLE reject_counts (
                status TEXT PRIMARY KEY,
                count INTEGER NOT NULL
            ) STRICT, WITHOUT ROWID;
            """)
}
