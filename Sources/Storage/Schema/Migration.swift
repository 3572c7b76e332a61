/// One versioned schema change, applied once in its own transaction and recorded in `schema_migrations`.
struct Migration: Sendable {
    /// Increasing from 1; never reused or renumbered once released.
    let version: Int64
    /// A short name for logs and errors.
    let name: String
    /// The statements to run.
    let sql: String
    /// Constraints whose text changes in place after `sql` has run (`ConstraintRewrite`).
    var rewrites: [ConstraintRewrite] = []
    /// Rows rewritten by code after `sql` and `rewrites`, in the same transaction.
    var data: (@Sendable (SQLiteConnection) throws(StoreError) -> Void)? = nil

    /// Every migration this build knows, in order (8 to 14 are in Migration+WriteCost.swift, 15 in
    /// Migration+Constraints.swift, 16 and 17 in Migration+ExternalSnapshots.swift, 18 in
    /// Migration+PostedTransactionDigests.swift, 19 in Migration+ConsumptionAnswers.swift, 20 and 21
    /// in Migration+AppleAnswers.swift, 22 in Migration+Customers.swift, 23 in Migration+Webhooks.swift,
    /// 24 in Migration+ZstdPayloads.swift, 25 in Migration+DeliveryLeases.swift, 26 in
    /// Migration+BackfillMarks.swift, 27 in Migration+EventsByApp.swift, 28 in
    /// Migration+EventPositionFloor.swift, 29 in Migration+DatabaseSettings.swift, 30 in
    /// Migration+PresentedOfferings.swift, 31 in Migration+PendingByCustomer.swift).
    static let all: [Migration] = [
        .v1, .v2, .v3, .v4, .v5, .v6, .v7, .v8, .v9, .v10, .v11, .v12, .v13, .v14, .v15, .v16, .v17, .v18,
        .v19, .v20, .v21, .v22, .v23, .v24, .v25, .v26, .v27, .v28, .v29, .v30, .v31,
    ]
}

// MARK: - Version 1

extension Migration {
    /// Notifications (raw payload kept forever) with their decoded transaction and renewal snapshots
    /// in the same row, and the reject log.
    ///
    /// The snapshots live in the notification's row, not in tables of their own: ingest writes one
    /// row and four index entries per notification, which keeps the group-commit writer cheap. The
    /// newest state per transaction is the subscription logic's projection, rebuilt from these rows.
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
                signed_payload TEXT NOT NULL,
                transaction_original_transaction_id TEXT,
                transaction_product_id TEXT,
                transaction_environment TEXT,
                transaction_signed_date INTEGER,
                transaction_json TEXT,
                renewal_original_transaction_id TEXT,
                renewal_product_id TEXT,
                renewal_environment TEXT,
                renewal_signed_date INTEGER,
                renewal_json TEXT
            ) STRICT;
            CREATE INDEX notifications_by_app ON notifications (app_id);
            CREATE INDEX notifications_by_state ON notifications (state);
            CREATE INDEX notifications_by_original_transaction ON notifications (original_transaction_id);

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

// MARK: - Version 2

extension Migration {
    /// The subscription logic's projection of the notifications: purchases, customers, events,
    /// timers, posted StoreKit transactions, and the order inputs were applied in (for replay).
    ///
    /// State is kept as JSON documents keyed the way the reducer loads slices; every row here can
    /// be rebuilt from `notifications` and `posted_transactions` by replaying `applied_inputs`.
    static let v2 = Migration(
        version: 2,
        name: "subscription state, events, timers and replay log",
        sql: """
            CREATE TABLE purchases (
                app_id TEXT NOT NULL,
                purchase_key TEXT NOT NULL,
                owner TEXT,
                json TEXT NOT NULL,
                PRIMARY KEY (app_id, purchase_key)
            ) STRICT;
            CREATE INDEX purchases_by_owner ON purchases (app_id, owner);

            CREATE TABLE customers (
                app_id TEXT NOT NULL,
                app_user_id TEXT NOT NULL,
                json TEXT NOT NULL,
                PRIMARY KEY (app_id, app_user_id)
            ) STRICT;

            CREATE TABLE unattached_facts (
                app_id TEXT NOT NULL,
                fact_id TEXT NOT NULL,
                json TEXT NOT NULL,
                PRIMARY KEY (app_id, fact_id)
            ) STRICT;

            CREATE TABLE events (
                id TEXT PRIMARY KEY,
                app_id TEXT NOT NULL,
                customer TEXT,
                sequence INTEGER,
                type TEXT NOT NULL,
                json TEXT NOT NULL,
                created_at INTEGER NOT NULL
            ) STRICT;
            CREATE INDEX events_by_customer ON events (app_id, customer, sequence);

            CREATE TABLE timers (
                app_id TEXT NOT NULL,
                id TEXT NOT NULL,
                fire_at INTEGER NOT NULL,
                json TEXT NOT NULL,
                PRIMARY KEY (app_id, id)
            ) STRICT;
            CREATE INDEX timers_by_fire_at ON timers (fire_at);

            CREATE TABLE posted_transactions (
                id INTEGER PRIMARY KEY,
                app_id TEXT NOT NULL,
                app_user_id TEXT NOT NULL,
                transaction_id TEXT,
                signed_transaction TEXT NOT NULL,
                received_at INTEGER NOT NULL
            ) STRICT;

            CREATE TABLE applied_inputs (
                seq INTEGER PRIMARY KEY,
                app_id TEXT NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('notification', 'posted_transaction')),
                ref TEXT NOT NULL,
                at INTEGER NOT NULL
            ) STRICT;
            """)
}

// MARK: - Version 3

extension Migration {
    /// A purchase's history (facts, emitted event ids, held events) in a column of its own, so
    /// reading a customer decodes only the current state. Rows written before keep their history
    /// inside `json` with `history` NULL, and are split the next time they are written.
    static let v3 = Migration(
        version: 3,
        name: "purchase history apart from the current state",
        sql: """
            ALTER TABLE purchases ADD COLUMN history TEXT;
            """)
}

// MARK: - Version 4

extension Migration {
    /// Webhook delivery and the scheduler.
    ///
    /// - `deliveries`: one row per event bound for an app's webhook, written in the transaction
    ///   that commits the event, with the event's position (the delivery order within a customer). Operational state, not derived: replay keeps it, so an event
    ///   already answered 2xx is never sent again after a replay either.
    /// - `events.position`: a global, increasing cursor (`GET /v1/events?after=`), assigned in
    ///   commit order; explicit because an implicit rowid may change on VACUUM.
    /// - `applied_inputs` also logs timer firings (`kind` 'timer'), so replay repeats them.
    static let v4 = Migration(
        version: 4,
        name: "webhook deliveries, event cursor, timer firings in the replay log",
        sql: """
            CREATE TABLE deliveries (
                event_id TEXT PRIMARY KEY,
                app_id TEXT NOT NULL,
                customer TEXT,
                position INTEGER NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('pending', 'delivered', 'dead')),
                attempts INTEGER NOT NULL DEFAULT 0,
                next_attempt_at INTEGER NOT NULL,
                created_at INTEGER NOT NULL,
                delivered_at INTEGER,
                last_status INTEGER,
                last_error TEXT
            ) STRICT;
            CREATE INDEX deliveries_pending ON deliveries (app_id, status, position);
            CREATE INDEX deliveries_by_status ON deliveries (status, created_at);

            ALTER TABLE events ADD COLUMN position INTEGER;
            UPDATE events SET position = rowid;
            CREATE UNIQUE INDEX events_by_position ON events (position);

            CREATE TABLE applied_inputs_v4 (
                seq INTEGER PRIMARY KEY,
                app_id TEXT NOT NULL,
                kind TEXT NOT NULL CHECK (kind IN ('notification', 'posted_transaction', 'timer')),
                ref TEXT NOT NULL,
                at INTEGER NOT NULL
            ) STRICT;
            INSERT INTO applied_inputs_v4 (seq, app_id, kind, ref, at) SELECT seq, app_id, kind, ref, at FROM applied_inputs;
            DROP TABLE applied_inputs;
            ALTER TABLE applied_inputs_v4 RENAME TO applied_inputs;
            """)
}

// MARK: - Version 5

extension Migration {
    /// Advanced Commerce in-app requests RevenueDot signed: `pending` until a transaction or
    /// renewal info with the same `requestReferenceId` arrives (`completed`, with that
    /// transaction). Operational state, like deliveries: replay keeps it.
    static let v5 = Migration(
        version: 5,
        name: "advanced commerce requests",
        sql: """
            CREATE TABLE commerce_requests (
                app_id TEXT NOT NULL,
                request_reference_id TEXT NOT NULL,
                app_user_id TEXT NOT NULL,
                operation TEXT NOT NULL,
                request_json TEXT NOT NULL,
                token TEXT NOT NULL,
                status TEXT NOT NULL CHECK (status IN ('pending', 'completed')),
                transaction_id TEXT,
                created_at INTEGER NOT NULL,
                completed_at INTEGER,
                PRIMARY KEY (app_id, request_reference_id)
            ) STRICT;
            """)
}

// MARK: - Version 6

extension Migration {
    /// What `GET /v1/subscribers` shows of each purchase (`PurchaseView`), written beside the state
    /// whenever the purchase is: small rows keyed by owner, so answering a customer reads a few
    /// hundred bytes per purchase instead of decoding its stored snapshots. Derived, like
    /// `purchases`: replay rebuilds it. A purchase written before has no view until its next write,
    /// and readers fall back to its state.
    static let v6 = Migration(
        version: 6,
        name: "purchase views for reading customers",
        sql: """
            CREATE TABLE purchase_views (
                app_id TEXT NOT NULL,
                owner TEXT NOT NULL,
                purchase_key TEXT NOT NULL,
                view TEXT NOT NULL,
                PRIMARY KEY (app_id, owner, purchase_key)
            ) STRICT, WITHOUT ROWID;
            CREATE INDEX purchase_views_by_key ON purchase_views (app_id, purchase_key);
            """)
}

// MARK: - Version 7

extension Migration {
    /// Notifications stored without their repeated certificate chains (`JWSCompaction`): each
    /// JWS header (its `x5c` chain) once in `jws_headers`, keyed by its SHA-256, and per
    /// notification `compact_payload`, which expands to the exact `signedPayload` Apple sent
    /// (checked before it is stored), with `signed_payload` left empty: the chains are most of a
    /// notification's bytes. Rows written before, and payloads that do not compact, keep
    /// `signed_payload` as it came.
    static let v7 = Migration(
        version: 7,
        name: "notification payloads without repeated certificate chains",
        sql: """
            CREATE TABLE jws_headers (
                sha256 TEXT PRIMARY KEY,
                header TEXT NOT NULL
            ) STRICT, WITHOUT ROWID;
            ALTER TABLE notifications ADD COLUMN compact_payload BLOB;
            """)
}
