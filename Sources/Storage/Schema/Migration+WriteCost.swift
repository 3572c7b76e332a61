// Migrations 8 to 14: the schema the product's first releases had, changed so that a notification
// writes less (fewer B-trees and WAL pages per commit) and costs the same whatever its purchase's
// age. Migrations 1 to 7, which built that schema, are in Migration.swift.

// MARK: - Version 8

extension Migration {
    /// A purchase's older facts as rows of their own (`purchase_facts`), each written once, while
    /// `purchases.history` keeps only the newest, so that what a write encodes, and what a
    /// notification costs, does not grow with its purchase's age. A fact newer than the kept one
    /// (the common case) is applied without reading these rows. Rows written before keep all their
    /// facts in `history` and move them here the next time they are written. Derived: replay
    /// rebuilds it.
    static let v8 = Migration(
        version: 8,
        name: "older purchase facts as rows of their own",
        sql: """
            CREATE TABLE purchase_facts (
                app_id TEXT NOT NULL,
                purchase_key TEXT NOT NULL,
                fact_id TEXT NOT NULL,
                json TEXT NOT NULL,
                PRIMARY KEY (app_id, purchase_key, fact_id)
            ) STRICT;
            """)
}

// MARK: - Version 9

extension Migration {
    /// The index on `notifications.state` keeps only rows not `applied` (held, failed, received:
    /// the ones a listing by state looks for), so storing an applied notification, the common
    /// case, writes nothing to it.
    static let v9 = Migration(
        version: 9,
        name: "state index on unapplied notifications only",
        sql: """
            DROP INDEX notifications_by_state;
            CREATE INDEX notifications_not_applied ON notifications (state) WHERE state != 'applied';
            """)
}

// MARK: - Version 10

extension Migration {
    /// The owner index on `purchases` keeps only purchases somebody owns: it serves one lookup,
    /// a customer's purchases by `owner = ?`, which never matches a purchase without an owner.
    /// Purchases nobody has claimed yet (server notifications that arrive before the app links
    /// them) write no entry of NULL to it, and so no page of it to the WAL.
    static let v10 = Migration(
        version: 10,
        name: "owner index on owned purchases only",
        sql: """
            DROP INDEX purchases_by_owner;
            CREATE INDEX purchases_by_owner ON purchases (app_id, owner) WHERE owner IS NOT NULL;
            """)
}

// MARK: - Version 11

extension Migration {
    /// Timers are stored in their primary key's B-tree (`WITHOUT ROWID`): a rowid table with a
    /// primary key is two B-trees, the rows and the key's index, so every notification that sets
    /// a timer would write a page of each (plus `timers_by_fire_at`) to the WAL. A timer row is
    /// about 120 bytes, small enough for SQLite's advice on `WITHOUT ROWID`.
    static let v11 = Migration(
        version: 11,
        name: "timers without rowid",
        sql: """
            CREATE TABLE timers_v11 (
                app_id TEXT NOT NULL,
                id TEXT NOT NULL,
                fire_at INTEGER NOT NULL,
                json TEXT NOT NULL,
                PRIMARY KEY (app_id, id)
            ) STRICT, WITHOUT ROWID;
            INSERT INTO timers_v11 (app_id, id, fire_at, json) SELECT app_id, id, fire_at, json FROM timers;
            DROP TABLE timers;
            ALTER TABLE timers_v11 RENAME TO timers;
            CREATE INDEX timers_by_fire_at ON timers (fire_at);
            """)
}

// MARK: - Version 12

extension Migration {
    /// No index on `notifications.original_transaction_id`: no query of the product uses it (the
    /// purchase's own row holds its history, each fact named by its notification's UUID), and
    /// original transaction ids arrive in no order, so every stored notification would write a
    /// leaf of it to the WAL. `NotificationFilter.originalTransactionId` works by scanning, like
    /// the type filter.
    static let v12 = Migration(
        version: 12,
        name: "no index on notifications by original transaction",
        sql: """
            DROP INDEX notifications_by_original_transaction;
            """)
}

// MARK: - Version 13

extension Migration {
    /// A subscription's pending expiration timer lives in its own `purchases` row
    /// (`timer_fire_at`; the timer is the original transaction id and that moment, nothing
    /// else). Every notification that moves a subscription's expiry rewrites that row anyway, so
    /// the timer writes no leaf of `timers`, whose keys arrive in no order. The partial index finds
    /// due timers as `timers_by_fire_at` does in `timers`, which keeps any timer whose subscription
    /// has no row. Both statements look each timer's purchase up by its key (one search per timer,
    /// not a scan of the purchases per timer), and rows without a timer are not rewritten.
    static let v13 = Migration(
        version: 13,
        name: "expiration timers in their purchase rows",
        sql: """
            ALTER TABLE purchases ADD COLUMN timer_fire_at INTEGER;
            UPDATE purchases SET timer_fire_at = t.fire_at FROM timers t
            WHERE substr(t.id, 1, 11) = 'expiration/' AND purchases.app_id = t.app_id
                AND purchases.purchase_key = 's:' || substr(t.id, 12);
            DELETE FROM timers WHERE substr(id, 1, 11) = 'expiration/' AND EXISTS (
                SELECT 1 FROM purchases p
                WHERE p.app_id = timers.app_id AND p.purchase_key = 's:' || substr(timers.id, 12)
            );
            CREATE INDEX purchases_by_timer ON purchases (timer_fire_at) WHERE timer_fire_at IS NOT NULL;
            """)
}

// MARK: - Version 14

extension Migration {
    /// The held events of a purchase nobody has claimed (events are held until it is linked),
    /// beyond the newest, as rows of their own: `purchases.history` is read and written whole with
    /// every notification, so held events kept there would make a subscription renewing for years
    /// without an owner cost more each time. Each is written once and read back only when the
    /// purchase is claimed, which deletes them. Histories written before keep theirs inline and
    /// move them here the next time they are written. Derived: replay rebuilds it.
    static let v14 = Migration(
        version: 14,
        name: "held events as rows of their own",
        sql: """
            CREATE TABLE held_events (
                app_id TEXT NOT NULL,
                purchase_key TEXT NOT NULL,
                seq INTEGER NOT NULL,
                json TEXT NOT NULL,
                PRIMARY KEY (app_id, purchase_key, seq)
            ) STRICT, WITHOUT ROWID;
            """)
}
