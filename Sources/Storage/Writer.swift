/// The writer thread's side of the store: owns the one writing connection and group-commits batches.
///
/// Not `Sendable`: it is created on the writer thread and never leaves it.
final class Writer {
    let connection: SQLiteConnection
    let handOff: any NotificationHandOff
    private let onCommit: (@Sendable (Int) -> Void)?
    /// False once a savepoint could not be rolled back: the open transaction can no longer be trusted.
    var transactionIsSound = true
    /// Hashes of JWS headers known to be in `jws_headers`, so a notification signed by a known
    /// chain inserts none (a cache: only ever holds committed rows; caller work, which could
    /// delete them, clears it).
    var committedHeaders: Set<String> = []
    /// Headers written by items of the open transaction; they join `committedHeaders` at commit.
    var headersInTransaction: Set<String> = []
    private static let maximumCachedHeaders = 1024

    /// Opens the writer connection and brings the schema up to date.
    init(
        path: String, handOff: any NotificationHandOff, onCommit: (@Sendable (Int) -> Void)?, checkpointer: Checkpointer
    ) throws(StoreError) {
        self.connection = try SQLiteConnection(path: path, role: .writer)
        connection.onWALCommit { frames in checkpointer.committed(walFrames: frames) }
        self.handOff = handOff
        self.onCommit = onCommit
        try Migrator(connection: connection).migrate()
    }

    /// The writer thread's whole life: open and migrate, report on `ready`, write until the queue is
    /// closed and drained, checkpoint. The connection is closed when this returns, since the writer
    /// does not outlive the call.
    static func serve(
        path: String, handOff: any NotificationHandOff, onCommit: (@Sendable (Int) -> Void)?, checkpointer: Checkpointer,
        queue: WriteQueue, maxBatch: Int, ready: Completion<Void>
    ) {
        let writer: Writer
        do throws(StoreError) {
            writer = try Writer(path: path, handOff: handOff, onCommit: onCommit, checkpointer: checkpointer)
        } catch {
            ready.resolve(.failure(error))
            return
        }
        ready.resolve(.success(()))
        writer.run(queue: queue, maxBatch: maxBatch)
    }

    /// Writes batches until the queue is closed and drained, then checkpoints the WAL into the database.
    func run(queue: WriteQueue, maxBatch: Int) {
        while let batch = queue.next(maximum: maxBatch) {
            write(batch)
        }
        // Best effort: a failed checkpoint leaves the WAL in place, and SQLite replays it on the next open.
        _ = try? connection.query("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    // MARK: - Batches

    private func write(_ batch: [WriteItem]) {
        var healthChecks: [Completion<Void>] = []
        var work: [WriteItem] = []
        work.reserveCapacity(batch.count)
        for item in batch {
            if case .healthCheck(let completion) = item {
                healthChecks.append(completion)
            } else {
                work.append(item)
            }
        }
        if !work.isEmpty { commitTogether(work) }
        if !healthChecks.isEmpty {
            let result = checkWriteLock()
            for completion in healthChecks { completion.resolve(result) }
        }
    }

    /// One transaction for the whole batch; if it cannot commit, each item gets its own transaction.
    private func commitTogether(_ items: [WriteItem]) {
        var outcomes: [Result<StoreOutcome, StoreError>?] = []
        outcomes.reserveCapacity(items.count)
        do throws(StoreError) {
            try begin()
            for item in items {
                outcomes.append(try apply(item))
            }
            if items.contains(where: \.isReject) { try trimRejects() }
            try commit()
        } catch {
            rollback()
            commitOneByOne(items)
            return
        }
        onCommit?(items.count)
        for (item, outcome) in zip(items, outcomes) {
            resolve(item, outcome)
        }
    }

    /// The fallback: so that one bad item cannot fail the others, each item commits (or fails) alone.
    private func commitOneByOne(_ items: [WriteItem]) {
        var lockFailure: StoreError?
        for item in items {
            // BEGIN does not depend on the item: once it failed after the busy timeout, do not wait again per item.
            if let lockFailure {
                resolve(item, .failure(lockFailure))
                continue
            }
            do throws(StoreError) {
                try begin()
            } catch {
                lockFailure = error
                resolve(item, .failure(error))
                continue
            }
            var outcome: Result<StoreOutcome, StoreError>?
            do throws(StoreError) {
                outcome = try apply(item)
                if case .failure(let error) = outcome { throw error }
                if item.isReject { try trimRejects() }
                try commit()
                onCommit?(1)
            } catch {
                rollback()
                outcome = .failure(error)
            }
            resolve(item, outcome)
        }
    }

    // MARK: - Transactions

    private func begin() throws(StoreError) {
        try connection.run("BEGIN IMMEDIATE")
        transactionIsSound = true
        headersInTransaction.removeAll(keepingCapacity: true)
    }

    private func commit() throws(StoreError) {
        try connection.run("COMMIT")
        if committedHeaders.count + headersInTransaction.count > Self.maximumCachedHeaders { committedHeaders.removeAll() }
        committedHeaders.formUnion(headersInTransaction)
    }

    private func rollback() {
        // If ROLLBACK itself fails, SQLite has already ended the transaction or will on close.
        if connection.isInTransaction { _ = try? connection.run("ROLLBACK") }
    }

    /// Takes and releases the write lock: the database is reachable, writable and not locked by others.
    private func checkWriteLock() -> Result<Void, StoreError> {
        do throws(StoreError) {
            try connection.run("BEGIN IMMEDIATE")
            try connection.run("ROLLBACK")
            return .success(())
        } catch {
            rollback()
            return .failure(error)
        }
    }

    private func resolve(_ item: WriteItem, _ outcome: Result<StoreOutcome, StoreError>?) {
        let result = outcome ?? .failure(StoreError(.unavailable, "the writer produced no outcome"))
        switch item {
        case .store(_, _, let completion): completion.resolve(result)
        case .work(_, let completion): completion.resolve(result.map { _ in () })
        case .reject, .healthCheck: break
        }
    }
}

extension WriteItem {
    var isReject: Bool {
        if case .reject = self { return true }
        return false
    }
}
