/// What the one writer (`Writer`) needs of a database engine: a connection to write with, how a
/// commit becomes durable, and what to do when the writer stops. SQLite's (`Writer.sqlite`) and
/// PostgreSQL's (`Writer.postgres`) are the two.
protocol WriterConnection: StatementRunner {
    /// Whether a transaction is open (or failed and not yet rolled back).
    var isInTransaction: Bool { get }
    /// Runs statements without arguments (transaction control).
    func execute(script: String) throws(StoreError)
    /// Begins a transaction that holds the database's write lock until it ends, and runs `opening`
    /// in it, which must not write: on an engine where each statement costs a round trip
    /// (PostgreSQL), the begin goes in the round trip of `opening`'s first statement that waits.
    func beginWrite(opening: () throws(StoreError) -> Void) throws(StoreError)
    /// Asks which of `writes` are stored, without waiting, where each statement costs a round
    /// trip (PostgreSQL): the answer comes with the next statement that waits, or `flushSent`.
    /// Nil where asking per notification is as cheap (SQLite, in-process).
    func sendStoredLookup(_ writes: [NotificationWrite]) throws(StoreError) -> StoredLookup?
}

extension WriterConnection {
    /// Begins a transaction that holds the write lock, and waits until it does.
    func beginWrite() throws(StoreError) {
        try beginWrite { () throws(StoreError) in try flushSent() }
    }
}

/// Which of some notifications were stored, once the round trip that asked is read.
struct StoredLookup {
    let uuids: [String]
    let answers: [PendingRows]

    /// The notifications stored, and those of them stored held.
    func stored() throws(StoreError) -> (stored: Set<String>, held: Set<String>) {
        var found: (stored: Set<String>, held: Set<String>) = ([], [])
        for (uuid, answer) in zip(uuids, answers) {
            guard let row = try answer.answer("looking up stored notifications").first else { continue }
            found.stored.insert(uuid)
            if row.first?.textValue == NotificationState.held.rawValue { found.held.insert(uuid) }
        }
        return found
    }
}

extension SQLiteConnection {
    func sendStoredLookup(_ writes: [NotificationWrite]) throws(StoreError) -> StoredLookup? { nil }
}

/// When the answers of a commit are released.
protocol CommitDurability: AnyObject {
    /// The first flush that failed: nothing is committed after it.
    var failure: StoreError? { get }
    /// `failure`, or why the next flush would fail now (the database file deleted or replaced):
    /// what the health check reports while nothing is being written.
    var problem: StoreError? { get }
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
    var problem: StoreError? { nil }
    func afterFlush(_ release: @escaping WALFlusher.Release) { release(nil) }
    func stop() {}
}

extension SQLiteConnection: WriterConnection {
    func beginWrite(opening: () throws(StoreError) -> Void) throws(StoreError) {
        try run("BEGIN IMMEDIATE")
        try opening()
    }
}

extension PostgresConnection: WriterConnection {
    /// The ledger's writes are serialized across every node by one transaction-scoped advisory
    /// lock, as SQLite's write lock serializes them on one file: a purchase and its customer are
    /// read, reduced and written by one node at a time, and sequences stay gapless.
    func beginWrite(opening: () throws(StoreError) -> Void) throws(StoreError) {
        try reconnectIfLost()
        do throws(StoreError) {
            try beginLocked(opening: opening)
        } catch {
            // Dropped by the server since the last use (a restart): nothing was written yet, so
            // connect again and begin once more.
            guard !isConnected else { throw error }
            try reconnectIfLost()
            try beginLocked(opening: opening)
        }
    }

    /// `BEGIN` and the lock, sent ahead of `opening`'s statements, in its first round trip.
    private func beginLocked(opening: () throws(StoreError) -> Void) throws(StoreError) {
        try send("BEGIN", [])
        try send("SELECT pg_advisory_xact_lock(?)", [.integer(Self.writeLockKey)])
        try opening()
        try drainPipeline()
    }

    func sendStoredLookup(_ writes: [NotificationWrite]) throws(StoreError) -> StoredLookup? {
        // One lookup by the unique key each: an `= ANY(array)` of them is planned once, while
        // the table is small, as a scan of it.
        var answers: [PendingRows] = []
        answers.reserveCapacity(writes.count)
        for write in writes { answers.append(try write.sendStoredQuery(on: self)) }
        return StoredLookup(uuids: writes.map(\.uuid), answers: answers)
    }

    /// The advisory lock key writes take ("RDWRITER" in ASCII).
    static let writeLockKey: Int64 = 0x5244_5752_4954_4552
}
