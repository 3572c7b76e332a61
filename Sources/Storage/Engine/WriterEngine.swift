/// What the one writer (`Writer`) needs of a database engine: a connection to write with, how a
/// commit becomes durable, and what to do when the writer stops. SQLite's (`Writer.sqlite`) and
/// PostgreSQL's (`Writer.postgres`) are the two.
protocol WriterConnection: StatementRunner {
    /// Whether a transaction is open (or failed and not yet rolled back).
    var isInTransaction: Bool { get }
    /// Runs statements without arguments (transaction control).
    func execute(script: String) throws(StoreError)
    /// Begins a transaction that holds the database's write lock until it ends.
    func beginWrite() throws(StoreError)
    /// Which of `uuids` are stored, in one round trip, for an engine where each statement costs
    /// one (PostgreSQL); nil where asking per notification is as cheap (SQLite, in-process).
    func storedNotifications(among uuids: [String]) throws(StoreError) -> Set<String>?
}

extension SQLiteConnection {
    func storedNotifications(among uuids: [String]) throws(StoreError) -> Set<String>? { nil }
}

/// When the answers of a commit are released.
protocol CommitDurability: AnyObject {
    /// The first flush that failed: nothing is committed after it.
    var failure: StoreError? { get }
    /// Calls `release` once everything committed so far is durable, with the failure if it cannot be.
    func afterFlush(_ release: @escaping WALFlusher.Release)
    /// Stops, after releasing what waits.
    func stop()
}

extension WALFlusher: CommitDurability {}

/// A commit that is durable when it returns (PostgreSQL with `synchronous_commit` on): its
/// answers are released at once, on the writer's thread.
final class DurableOnCommit: CommitDurability {
    var failure: StoreError? { nil }
    func afterFlush(_ release: @escaping WALFlusher.Release) { release(nil) }
    func stop() {}
}

extension SQLiteConnection: WriterConnection {
    func beginWrite() throws(StoreError) {
        try run("BEGIN IMMEDIATE")
    }
}

extension PostgresConnection: WriterConnection {
    /// The ledger's writes are serialized across every node by one transaction-scoped advisory
    /// lock, as SQLite's write lock serializes them on one file: a purchase and its customer are
    /// read, reduced and written by one node at a time, and sequences stay gapless.
    func beginWrite() throws(StoreError) {
        try reconnectIfLost()
        do throws(StoreError) {
            try beginLocked()
        } catch {
            // Dropped by the server since the last use (a restart): nothing was done yet, so
            // connect again and begin once more.
            guard !isConnected else { throw error }
            try reconnectIfLost()
            try beginLocked()
        }
    }

    /// `BEGIN` and the lock, in one round trip.
    private func beginLocked() throws(StoreError) {
        try send("BEGIN", [])
        _ = try query("SELECT pg_advisory_xact_lock(?)", [.integer(Self.writeLockKey)])
    }

    func storedNotifications(among uuids: [String]) throws(StoreError) -> Set<String>? {
        // One lookup by the unique key each, all in one round trip: an `= ANY(array)` of them
        // is planned once, while the table is small, as a scan of it.
        let found = try queryEach(NotificationSQL.exists, uuids.map { [.text($0)] })
        return Set(zip(uuids, found).compactMap { uuid, rows in rows.isEmpty ? nil : uuid })
    }

    /// The advisory lock key writes take ("RDWRITER" in ASCII).
    static let writeLockKey: Int64 = 0x5244_5752_4954_4552
}
