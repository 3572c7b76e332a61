// Migrations 16 and 17: snapshots stored once, beside the payload and beside the state.

extension Migration {
    /// Compact payloads (`JWSCompaction`, migration 7) leave out the nested transaction and renewal
    /// info payload segments where they encode exactly `transaction_json` and `renewal_json`, which
    /// the row holds anyway, so that two rows fit in a page.
    ///
    /// No table changes, and rows written before expand as they did. The version is what matters:
    /// a build before this one would read a new row's references as payload bytes and give a
    /// wrong `signedPayload`, and it refuses a database at a version it does not know.
    static let v16 = Migration(
        version: 16,
        name: "compact payloads refer to the snapshot columns",
        sql: "")
}

// Migration 17: a purchase's history without the snapshots its state holds.

extension Migration {
    /// The newest fact a purchase's history keeps usually carries the transaction and renewal info
    /// its state holds: the row keeps them once, and `history_snapshots` says which the history
    /// left out (`HistorySnapshots` in RevenueDot). NULL, as in every row written before, means
    /// none. A build before this one would read such a history as a fact without snapshots: the
    /// version keeps it from opening the database.
    static let v17 = Migration(
        version: 17,
        name: "purchase histories without the snapshots their state holds",
        sql: "ALTER TABLE purchases ADD COLUMN history_snapshots TEXT;")
}
