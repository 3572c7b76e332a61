import AppStore
import Dispatch
import Foundation
import Subscriptions
import Threads

/// The store: every table behind typed operations, on one of two engines. On SQLite (one file):
/// one writer thread with group commit, a flusher thread that puts each commit on disk, parallel
/// readers, and a checkpointer thread that copies the WAL into the database off the writer's
/// path. On PostgreSQL (`init(postgres:)`): the same writer and readers over libpq connections.
///
/// Many threads call `store(_:)` at once; each blocks until the transaction holding its
/// notification is committed and on disk (`fdatasync` of the WAL), because the HTTP answer 200
/// promises durability. The writer takes everything queued, writes it in one `BEGIN IMMEDIATE` …
/// `COMMIT`, and hands the waiters to the flusher (`WALFlusher`), which wakes each with its own
/// outcome once its commit is on disk, so one fsync serves many requests. While a flush runs, the
/// writer already applies the items that arrive into its next transaction.
public final class Store: Sendable {
    /// Where the database is: the SQLite file, or the PostgreSQL URL without its password.
    public let path: String
    /// What went wrong at start without stopping it (a WAL that could not be reserved), for
    /// the server to print.
    public let warnings: [String]
    /// The migrations opening applied to a schema that was there (nil for a new database, or
    /// one already current), for the server to log.
    public let schemaUpgrade: SchemaUpgrade?
    /// How tracking writes anonymous ids in this database (`DatabaseSettings`).
    package let anonymousIds: AnonymousIds
    private let queue = WriteQueue()
    private let pendingRejects = PendingRejects()
    let readers: ReaderPool
    /// How new payloads are compressed (`StoredPayloads`).
    let payloads: StoredPayloads
    /// The highest event position on disk, on SQLite; nil on PostgreSQL (`DurableEvents`).
    public let durableEvents: DurableEvents?
    /// Copies SQLite's WAL into the database (none on PostgreSQL).
    private let checkpointer: Checkpointer?
    /// Left by the writer thread when it has drained the queue, checkpointed and closed its connection.
    private let writerFinished = DispatchGroup()
    /// Held while open by a store that must be the only writer (`exclusive`).
    let lock: DatabaseLock?

    /// Whether other processes may write the same database at once (PostgreSQL, with several
    /// nodes): work one node must do alone is then claimed in it (`Deliveries.claimDue`).
    public let isShared: Bool

    /// How long `healthCheck()` waits for the writer before reporting `.busy`.
    public static let healthCheckTimeout: Duration = .seconds(2)

    /// Opens (creating if needed) the database file, applies migrations, starts the writer thread.
    ///
    /// - Parameters:
    ///   - handOff: runs inside the write transaction for each newly stored notification.
    ///   - maxBatch: the most items one transaction holds.
    ///   - readers: how many read connections may run at once.
    ///   - onCommit: called after each commit is on disk with what it held (for metrics, and to
    ///     wake the webhook workers when it changed the outbox), before the waiters are woken, on
    ///     the thread that flushes the WAL: keep it cheap, and do not call the store from it. An
    ///     init parameter rather than a settable property, so the store stays immutable and
    ///     `Sendable`.
    ///   - onRejectsFailed: called on the writer thread when a write of the reject log failed
    ///     (a full disk, say; the rejects are kept and the write is tried again every second):
    ///     nobody waits for those writes, and a failed one fails the health check (`Writer`).
    ///     Keep it cheap; do not call the store from it.
    ///   - onFlush: called with the time each `fdatasync` of the WAL took, on the same thread and with
    ///     the same care, before the answers it releases: every answer of the commits it covers
    ///     waited that long (for metrics: a disk that stalls holds every answer).
    ///   - reservesWAL: whether the WAL gets its full size at once (`WALReserve`): for a server,
    ///     which writes under sustained load, not for a command that writes a little and exits.
    ///   - exclusive: whether this process must be the only one writing the database (a server, a
    ///     replay): the store then holds `DatabaseLock` while open, and fails with `.unavailable`
    ///     before touching the database when another process holds it. Only an exclusive store
    ///     truncates the WAL when it closes: another would take away a running server's reserve.
    public convenience init(
        path: String,
        handOff: any NotificationHandOff = KeepReceived(),
        maxBatch: Int = 512,
        readers: Int = 4,
        onCommit: (@Sendable (CommittedBatch) -> Void)? = nil,
        onRejectsFailed: (@Sendable (StoreError) -> Void)? = nil,
        onFlush: (@Sendable (Duration) -> Void)? = nil,
        reservesWAL: Bool = false,
        exclusive: Bool = false
    ) throws(StoreError) {
        try self.init(
            path: path, handOff: handOff, maxBatch: maxBatch, readers: readers, onCommit: onCommit,
            onRejectsFailed: onRejectsFailed, onFlush: onFlush, reservesWAL: reservesWAL, exclusive: exclusive,
            flush: WALFlusher.fdatasync)
    }

    /// The store, with `flush` putting the WAL on disk instead of `fdatasync` (tests hold or fail it).
    init(
        path: String, handOff: any NotificationHandOff, maxBatch: Int, readers: Int,
        onCommit: (@Sendable (CommittedBatch) -> Void)?,
        onRejectsFailed: (@Sendable (StoreError) -> Void)? = nil, onFlush: WALFlusher.Observe? = nil, reservesWAL: Bool = false,
        exclusive: Bool = false, dictionaryWindow: Int = StoredPayloads.defaultWindow,
        flush: @escaping WALFlusher.Flush
    ) throws(StoreError) {
        guard maxBatch >= 1 else { throw StoreError(.invalid, "maxBatch must be at least 1, got \(maxBatch)") }
        let lock = exclusive ? try DatabaseLock(databasePath: path) : nil
        if let lock, let secondName = DatabaseLock.secondNameProblem(path) {
            lock.discard()
            throw StoreError(.unavailable, secondName)
        }
        self.lock = lock
        self.path = path
        self.isShared = false
        self.readers = ReaderPool(path: path, size: readers)
        self.payloads = StoredPayloads(queue: queue, dictionaries: self.readers.dictionaries, window: dictionaryWindow)
        let checkpointer = Checkpointer()
        self.checkpointer = checkpointer
        let durableEvents = DurableEvents()
        self.durableEvents = durableEvents
        let damage = self.readers.damage
        do throws(StoreError) {
            let started = try Self.startWriter(queue: queue, finished: writerFinished, maxBatch: maxBatch) {
                () throws(StoreError) in
                try Writer.sqlite(
                    path: path, handOff: handOff, onCommit: onCommit, onRejectsFailed: onRejectsFailed,
                    reservesWAL: reservesWAL, truncatesWALOnClose: exclusive, flush: flush, onFlush: onFlush,
                    checkpointer: checkpointer, durableEvents: durableEvents, damage: damage)
            }
            warnings = started.warnings
            schemaUpgrade = started.upgrade
            anonymousIds = started.anonymousIds
        } catch {
            lock?.discard()
            throw error
        }
        do throws(StoreError) {
            try self.readers.snapshot { [payloads] (transaction) throws(StoreError) in
                try payloads.adoptNewest(in: transaction)
                try durableEvents.adopt(in: transaction)
            }
            try checkpointer.start(path: path)
        } catch {
            close()
            throw error
        }
    }

    /// The store on a PostgreSQL database, migrated first (under a lock, so that nodes starting
    /// together migrate once): one writer thread with group commit, each transaction holding the
    /// cluster-wide write lock, and `readers` connections for reads. A commit is durable when it
    /// returns (`synchronous_commit`). Connections lost to a restart of the database are made
    /// again by the next write or read; until then those fail with `.unavailable`.
    ///
    /// `exclusive` is for `replay`: the store then fails with `.unavailable` while any other
    /// store (a node, a command) has the database open, and keeps others out while open
    /// (`PostgresUse`).
    public convenience init(
        postgres url: PostgresURL, handOff: any NotificationHandOff = KeepReceived(), maxBatch: Int = 512,
        readers: Int = 4, onCommit: (@Sendable (CommittedBatch) -> Void)? = nil,
        onRejectsFailed: (@Sendable (StoreError) -> Void)? = nil,
        exclusive: Bool = false
    ) throws(StoreError) {
        try self.init(
            postgres: url, handOff: handOff, maxBatch: maxBatch, readers: readers, onCommit: onCommit,
            onRejectsFailed: onRejectsFailed, exclusive: exclusive, dictionaryWindow: StoredPayloads.defaultWindow)
    }

    /// The store on PostgreSQL, making a payload dictionary after `dictionaryWindow` payloads.
    init(
        postgres url: PostgresURL, handOff: any NotificationHandOff, maxBatch: Int, readers: Int,
        onCommit: (@Sendable (CommittedBatch) -> Void)?, onRejectsFailed: (@Sendable (StoreError) -> Void)?,
        exclusive: Bool = false,
        dictionaryWindow: Int
    ) throws(StoreError) {
        guard maxBatch >= 1 else { throw StoreError(.invalid, "maxBatch must be at least 1, got \(maxBatch)") }
        self.lock = nil
        self.checkpointer = nil
        self.durableEvents = nil
        self.path = url.description
        self.isShared = true
        self.readers = ReaderPool(size: readers) { () throws(StoreError) in try PostgresConnection(url: url) }
        self.payloads = StoredPayloads(queue: queue, dictionaries: self.readers.dictionaries, window: dictionaryWindow)
        let started = try Self.startWriter(queue: queue, finished: writerFinished, maxBatch: maxBatch) {
            () throws(StoreError) in
            try Writer.postgres(
                url: url, use: exclusive ? .exclusive : .shared, handOff: handOff, onCommit: onCommit,
                onRejectsFailed: onRejectsFailed)
        }
        warnings = started.warnings
        schemaUpgrade = started.upgrade
        anonymousIds = started.anonymousIds
        do throws(StoreError) {
            try self.readers.snapshot { [payloads] (transaction) throws(StoreError) in try payloads.adoptNewest(in: transaction) }
        } catch {
            close()
            throw error
        }
    }

    deinit {
        close()
    }

    // MARK: - Writing

    /// Stores a notification and blocks until the commit holding it is on disk.
    ///
    /// - Returns: `.stored`, or `.duplicate` when a notification with the same UUID is already stored
    ///   (nothing is written then: no snapshot, no hand-off).
    /// - Throws: `.invalid` for a record that cannot be stored; `.unavailable` after `close()`;
    ///   otherwise the error of the failed commit (the caller answers 503 so Apple retries).
    public func store(_ record: NotificationRecord) throws(StoreError) -> StoreOutcome {
        try Self.validate(record)
        let completion = Completion<StoreOutcome>()
        guard queue.enqueue(storeItem(record, completion)) else {
            throw StoreError(.unavailable, "the store is closed")
        }
        return try completion.wait().get()
    }

    /// Stores a notification without blocking: `completion` runs on the flusher thread once the
    /// commit holding it is on disk (or at once, when the record is invalid or the store closed).
    ///
    /// For servers that must not hold a thread while the commit is on its way; the outcomes are
    /// those of `store(_:)`. `completion` must be quick and must not call back into this store.
    public func store(
        _ record: NotificationRecord, completion: @escaping @Sendable (Result<StoreOutcome, StoreError>) -> Void
    ) {
        do throws(StoreError) {
            try Self.validate(record)
        } catch {
            completion(.failure(error))
            return
        }
        guard queue.enqueue(storeItem(record, Completion(callback: completion))) else {
            completion(.failure(StoreError(.unavailable, "the store is closed")))
            return
        }
    }

    /// Runs `body` inside a write transaction (group-committed like notifications) and blocks
    /// until it is committed. If `body` throws, its writes are undone and the error is rethrown;
    /// other work in the same batch is unaffected. `body` must not call back into this store.
    public func write(_ body: @escaping @Sendable (WriteTransaction) throws -> Void) throws(StoreError) {
        let completion = Completion<Void>()
        guard queue.enqueue(.work(WriteWork(body: body), completion)) else {
            throw StoreError(.unavailable, "the store is closed")
        }
        try completion.wait().get()
    }

    /// Runs `body` inside a write transaction without blocking: `completion` runs on the flusher
    /// thread once the commit holding it is on disk (or with the error of `body`, of the commit or of the flush).
    /// `completion` must be quick and must not wait on this store (a blocking `write`, a `read`):
    /// the flusher would wait on itself. Queuing another write this way is fine (the scheduler
    /// postpones a timer that failed so).
    public func write(
        _ body: @escaping @Sendable (WriteTransaction) throws -> Void,
        completion: @escaping @Sendable (Result<Void, StoreError>) -> Void
    ) {
        guard queue.enqueue(.work(WriteWork(body: body), Completion(callback: completion))) else {
            completion(.failure(StoreError(.unavailable, "the store is closed")))
            return
        }
    }

    /// Runs `body` with a read-only connection; it sees a consistent snapshot of committed data.
    public func read<T: Sendable>(_ body: @Sendable (ReadTransaction) throws(StoreError) -> T) throws(StoreError) -> T {
        try readers.snapshot(body)
    }

    /// Records a refused request. Best effort: it does not wait for a commit, and the rejects of a
    /// second are written together (`PendingRejects`), so a flood of them costs the writer one
    /// small write a second.
    ///
    /// Bumps the per-status count and appends to the recent list, trimmed to the newest
    /// `RejectLog.recentLimit`. Written at the latest when the store closes; dropped silently
    /// once it is closed.
    public func recordReject(_ reject: Reject) {
        guard let delay = pendingRejects.add(reject) else { return }
        let item = WriteItem.rejects(pendingRejects, nil)
        if delay == .zero {
            _ = queue.enqueue(item)
        } else {
            DispatchQueue.global().asyncAfter(deadline: .after(delay)) { [queue] in _ = queue.enqueue(item) }
        }
    }

    /// Whether recorded rejects wait for the writer to take them (a write of them may be open).
    var hasPendingRejects: Bool { pendingRejects.hasPending }

    /// Items (stores, rejects, health checks) waiting for the writer, for metrics.
    public var queueDepth: Int { queue.depth }

    /// How many writes were queued since the store opened (the writer may have taken them).
    var writesQueued: Int { queue.accepted }

    /// Whether `close` was called: every write fails from then on.
    public var isClosed: Bool { queue.isClosed }

    /// The writer's item for `record`, its payload compressed here, on the caller's thread, not on
    /// the single writer.
    private func storeItem(_ record: NotificationRecord, _ completion: Completion<StoreOutcome>) -> WriteItem {
        .store(NotificationWrite(record, compressingWith: payloads), completion)
    }

    private static func validate(_ record: NotificationRecord) throws(StoreError) {
        guard !record.notificationUUID.isEmpty else {
            throw StoreError(.invalid, "notificationUUID is empty")
        }
        guard !record.signedPayload.isEmpty else {
            throw StoreError(.invalid, "signedPayload of \(record.notificationUUID) is empty")
        }
        if let transaction = record.transaction, transaction.transactionId != record.transactionId {
            throw StoreError(
                .invalid,
                "transactionId \(record.transactionId ?? "nil") of \(record.notificationUUID) differs from its "
                    + "transaction snapshot's \(transaction.transactionId)")
        }
    }

    // MARK: - Reading

    /// The reject counts by status and the newest rejects (newest first).
    public func rejectLog() throws(StoreError) -> RejectLog {
        // What this process refused so far is written first, so it reads its own rejects.
        let written = Completion<Void>()
        if queue.enqueue(.rejects(pendingRejects, written)) { _ = written.wait() }
        return try readers.rejectLog()
    }

    // MARK: - Health and shutdown

    /// Succeeds when the database answers a read and the writer can take the write lock
    /// (`BEGIN IMMEDIATE; ROLLBACK` on the writer's own connection, so it never competes with it).
    ///
    /// Waits at most `healthCheckTimeout` for the writer, then throws `.busy`.
    public func healthCheck() throws(StoreError) {
        let completion = Completion<Void>()
        healthCheck { completion.resolve($0) }
        try completion.wait().get()
    }

    /// The health check without blocking: `done` runs once, on the writer thread when it
    /// answered, or on a timer thread with `.busy` once `healthCheckTimeout` passed first. For
    /// an HTTP worker, which must not be held while the writer waits for a lock.
    ///
    /// The timeout covers the whole check: the read (a reader may wait for a busy database too)
    /// runs on a dispatch thread, not on the caller's.
    public func healthCheck(_ done: @escaping @Sendable (Result<Void, StoreError>) -> Void) {
        // The writer's answer and the timeout race; the first resolves it.
        let answer = Completion(callback: done)
        let (queue, shared) = (queue, isShared)
        DispatchQueue.global().asyncAfter(deadline: .after(Self.healthCheckTimeout)) {
            answer.resolve(
                .failure(
                    StoreError(
                        .busy,
                        "the database did not answer within \(Self.healthCheckTimeout); \(queue.depth) writes queued"
                            + (shared ? " (on PostgreSQL, another node may hold the write lock)" : ""))))
        }
        let readers = readers
        DispatchQueue.global().async {
            do throws(StoreError) {
                _ = try readers.read { (connection) throws(StoreError) in
                    try connection.query("SELECT count(*) FROM schema_migrations")
                }
            } catch {
                return answer.resolve(.failure(error))
            }
            guard queue.enqueue(.healthCheck(answer)) else {
                return answer.resolve(.failure(StoreError(.unavailable, "the store is closed")))
            }
        }
    }

    /// Stops accepting, drains and commits everything queued, checkpoints the WAL, closes. Idempotent.
    ///
    /// `store(_:)` calls made after this begins throw `.unavailable`; calls already queued complete normally.
    public func close() {
        // The last rejects are written before the writer stops (a queue already closed refuses them).
        if pendingRejects.hasPending { _ = queue.enqueue(.rejects(pendingRejects, nil)) }
        queue.close()
        checkpointer?.stop()
        readers.close()
        writerFinished.wait()
        lock?.release()
    }

    /// `close()`, giving up after `timeout`: false when the writer (or a checkpoint) is still
    /// waiting for the disk then. For a process about to exit, which can: every commit whose
    /// answer was given is on disk, and SQLite ignores a transaction that never committed. The
    /// close goes on in the background.
    public func close(waitingAtMost timeout: Duration) -> Bool {
        let closed = MonotonicSemaphore()
        NamedThread.start("storage-close") { [self] in
            close()
            closed.signal()
        }
        return closed.wait(timeout: .after(timeout)) == .success
    }
}
