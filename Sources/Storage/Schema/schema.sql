-- RevenueDot's SQLite schema at migration 31: what the migrations in this folder give a new
-- database. Generated; checked by SchemaBaselineTests.

CREATE TABLE apple_answers (
    id INTEGER PRIMARY KEY,
    app_id TEXT NOT NULL,
    signed_transaction TEXT NOT NULL,
    signed_renewal_info TEXT,
    app_user_id TEXT,
    received_at INTEGER NOT NULL
, from_history INTEGER NOT NULL DEFAULT 0 CHECK (from_history IN (0, 1))) STRICT;

CREATE TABLE "applied_inputs" (
    seq INTEGER PRIMARY KEY,
    app_id TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind = 'notification' OR kind = 'posted_transaction' OR kind = 'timer' OR kind = 'apple_answer' OR kind = 'customer_action'),
    ref TEXT NOT NULL,
    at INTEGER NOT NULL
) STRICT;

CREATE TABLE backfill_marks (
    app_id TEXT NOT NULL,
    environment TEXT NOT NULL,
    read_through INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (app_id, environment)
) STRICT;

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

CREATE TABLE customer_actions (
    id INTEGER PRIMARY KEY,
    app_id TEXT NOT NULL,
    json TEXT NOT NULL,
    received_at INTEGER NOT NULL
) STRICT;

CREATE TABLE customer_aliases (
    app_id TEXT NOT NULL,
    alias TEXT NOT NULL,
    app_user_id TEXT NOT NULL,
    PRIMARY KEY (app_id, alias)
) STRICT, WITHOUT ROWID;

CREATE TABLE customer_contacts (
    app_id TEXT NOT NULL,
    app_user_id TEXT NOT NULL,
    last_seen_at INTEGER NOT NULL,
    PRIMARY KEY (app_id, app_user_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE customers (
    app_id TEXT NOT NULL,
    app_user_id TEXT NOT NULL,
    json TEXT NOT NULL,
    PRIMARY KEY (app_id, app_user_id)
) STRICT;

CREATE TABLE database_settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE "deliveries" (
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
    last_error TEXT, claimed_by TEXT, claimed_until INTEGER,
    PRIMARY KEY (event_id, webhook)
) STRICT;

CREATE TABLE event_position_floor (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    position INTEGER NOT NULL
) STRICT;

CREATE TABLE events (
    id TEXT PRIMARY KEY,
    app_id TEXT NOT NULL,
    customer TEXT,
    sequence INTEGER,
    type TEXT NOT NULL,
    json TEXT NOT NULL,
    created_at INTEGER NOT NULL
, position INTEGER) STRICT;

CREATE TABLE held_events (
    app_id TEXT NOT NULL,
    purchase_key TEXT NOT NULL,
    seq INTEGER NOT NULL,
    json TEXT NOT NULL,
    PRIMARY KEY (app_id, purchase_key, seq)
) STRICT, WITHOUT ROWID;

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
    state TEXT NOT NULL CHECK (state = 'received' OR state = 'applied' OR state = 'held' OR state = 'failed'),
    state_reason TEXT,
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
, payload BLOB, payload_dictionary INTEGER REFERENCES payload_dictionaries (id)) STRICT;

CREATE TABLE payload_dictionaries (
    id INTEGER PRIMARY KEY,
    dictionary BLOB NOT NULL,
    trained_at INTEGER NOT NULL,
    samples INTEGER NOT NULL
) STRICT;

CREATE TABLE posted_transactions (
    id INTEGER PRIMARY KEY,
    app_id TEXT NOT NULL,
    app_user_id TEXT NOT NULL,
    transaction_id TEXT,
    signed_transaction TEXT NOT NULL,
    received_at INTEGER NOT NULL
, content_digest TEXT, presented_offering_id TEXT) STRICT;

CREATE TABLE purchase_facts (
    app_id TEXT NOT NULL,
    purchase_key TEXT NOT NULL,
    fact_id TEXT NOT NULL,
    json TEXT NOT NULL,
    PRIMARY KEY (app_id, purchase_key, fact_id)
) STRICT;

CREATE TABLE purchase_views (
    app_id TEXT NOT NULL,
    owner TEXT NOT NULL,
    purchase_key TEXT NOT NULL,
    view TEXT NOT NULL,
    PRIMARY KEY (app_id, owner, purchase_key)
) STRICT, WITHOUT ROWID;

CREATE TABLE purchases (
    app_id TEXT NOT NULL,
    purchase_key TEXT NOT NULL,
    owner TEXT,
    json TEXT NOT NULL, history TEXT, timer_fire_at INTEGER, history_snapshots TEXT,
    PRIMARY KEY (app_id, purchase_key)
) STRICT;

CREATE TABLE reject_counts (
    status TEXT PRIMARY KEY,
    count INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE rejects (
    id INTEGER PRIMARY KEY,
    app_id TEXT NOT NULL,
    status TEXT NOT NULL,
    reason TEXT NOT NULL,
    at INTEGER NOT NULL
) STRICT;

CREATE TABLE schema_migrations (
    version INTEGER PRIMARY KEY,
    applied_at TEXT NOT NULL
);

CREATE TABLE "timers" (
    app_id TEXT NOT NULL,
    id TEXT NOT NULL,
    fire_at INTEGER NOT NULL,
    json TEXT NOT NULL,
    PRIMARY KEY (app_id, id)
) STRICT, WITHOUT ROWID;

CREATE TABLE unattached_facts (
    app_id TEXT NOT NULL,
    fact_id TEXT NOT NULL,
    json TEXT NOT NULL,
    PRIMARY KEY (app_id, fact_id)
) STRICT;

CREATE INDEX consumption_answers_due ON consumption_answers (status, next_attempt_at);

CREATE INDEX customer_aliases_by_customer ON customer_aliases (app_id, app_user_id);

CREATE INDEX deliveries_by_status ON deliveries (status, created_at);

CREATE INDEX deliveries_pending ON deliveries (app_id, webhook, status, position);

CREATE INDEX deliveries_pending_by_customer ON deliveries (app_id, customer) WHERE status = 'pending';

CREATE INDEX events_by_app ON events (app_id, position);

CREATE INDEX events_by_customer ON events (app_id, customer, sequence);

CREATE UNIQUE INDEX events_by_position ON events (position);

CREATE INDEX notifications_by_app ON notifications (app_id);

CREATE INDEX notifications_consumption_requests ON notifications (signed_date)
    WHERE notification_type = 'CONSUMPTION_REQUEST';

CREATE INDEX notifications_not_applied ON notifications (state) WHERE state != 'applied';

CREATE INDEX posted_transactions_by_transaction ON posted_transactions (app_id, transaction_id);

CREATE INDEX purchase_views_by_key ON purchase_views (app_id, purchase_key);

CREATE INDEX purchases_by_owner ON purchases (app_id, owner) WHERE owner IS NOT NULL;

CREATE INDEX purchases_by_timer ON purchases (timer_fire_at) WHERE timer_fire_at IS NOT NULL;

CREATE INDEX timers_by_fire_at ON timers (fire_at);
