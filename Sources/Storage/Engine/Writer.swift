import Dispatch
import Subscriptions
import Threads

/// The writer thread's side of the store: owns the one writing connection and group-commits batches.
///
/// Not `Sendable`: it is created on the writer thread and never leaves it.
final class Writer {
    let connection: any WriterConnection
    let handOff: any NotificationHandOff
    private let onCommit: (@Sendable (CommittedBatch) -> Void)?
    /// The apps whose outbox work since the last commit changed (`CommittedBatch.outboxApps`);
    /// work rolled back may leave one, which costs its workers one read.
    var outboxApps: Set<String> = []
    /// Whether work since the last commit inserted events (`WriteTransaction.noteEventsWritten`).
    var eventsWritten = false
    /// Where the highest event position on disk is kept, on SQLite (`DurableEvents`).
    private let durableEvents: DurableEvents?
    /// Where a write that found the database file damaged is noted (shared with the readers).
    private let damage: DatabaseDamage?
    /// Told when a write of the reject log failed on its own (the rejects are kept and tried again).
    private let onRejectsFailed: (@Sendable (StoreError) -> Void)?
    /// Answers each commit once it is durable (SQLite's writer commits without waiting for the
    /// disk, and its `WALFlusher` holds the answers until the WAL is on it).
    private let durability: any CommitDurability
    /// The engine's last words when the writer stops (SQLite checkpoints its WAL).
    private let closing: () -> Void
    /// What went wrong at start without stopping it, for the server to print.
    let warnings: [String]
    /// The database's choice of anonymous ids, lent with every transaction (`WriteTransaction`).
    let anonymousIds: AnonymousIds
    /// The migrations opening applied to a schema that was there.
    let upgrade: SchemaUpgrade?
    /// False once a savepoint could not be rolled back: the open transaction can no longer be trusted.
    var transactionIsSound = true
    /// The notifications of the items being applied that were already stored when the open
    /// transaction looked (`WriterConnection.sendStoredLookup`), and those stored in it since;
    /// nil where each is looked up alone.
    var storedUUIDs: Set<String>?
    /// Those of `storedUUIDs` stored held (a received copy takes one up), while the lookup and
    /// the writes since tell; nil where each is looked up at its turn.
    var heldUUIDs: Set<String>?
    /// The hand-off for the rest of the open transaction (`NotificationHandOff.prepared`), until
    /// caller work writes in it; nil for `handOff` itself.
    var preparedHandOff: (any NotificationHandOff)?
    /// The reject batches written in the open transaction: a rollback puts them back, so that the
    /// item applied again (or the next write of rejects) takes them again.
    var rejectsInTransaction: [(pending: PendingRejects, batch: PendingRejects.Batch)] = []
    /// The last write that failed for lack of disk or an I/O error, until a commit succeeds: the
    /// health check reports it for `recentFailureWindow`, since taking the write lock, which is
    /// all it does otherwise, still works on a full disk.
    private var recentIOFailure: (error: StoreError, at: ContinuousClock.Instant)?
    /// How long a failed write keeps the health check failing when no commit succeeds after it
    /// (without traffic none would, and a load balancer that trusts /health would send none).
    static let recentFailureWindow: Duration = .seconds(30)

    init(
        connection: any WriterConnection, durability: any CommitDurability, handOff: any NotificationHandOff,
        onCommit: (@Sendable (CommittedBatch) -> Void)?, onRejectsFailed: (@Sendable (StoreError) -> Void)?,
        anonymousIds: AnonymousIds, warnings: [String] = [], upgrade: SchemaUpgrade? = nil,
        durableEvents: DurableEvents? = nil, damage: DatabaseDamage? = nil, closing: @escaping () -> Void = {}
    ) {
        self.anonymousIds = anonymousIds
        self.durableEvents = durableEvents
        self.damage = damage
        self.connection = connection
        self.durability = durability
        self.handOff = handOff
        self.onCommit = onCommit
        self.onRejectsFailed = onRejectsFailed
        self.warnings = warnings
        self.upgrade = upgrade
        self.closing = closing
    }

    /// What opening the writer has to say: warnings, a schema it migrated, and the database's
    /// choice of anonymous ids.
    struct Started: Sendable {
        var warnings: [String]
        var upgrade: SchemaUpgrade?
        var anonymousIds: AnonymousIds
    }

    /// The writer thread's whole life: open the engine's writer (which migrates), report on
    /// `ready`, write until the queue is closed and drained, close. The connection is closed when
    /// this returns, since the writer does not outlive the call.
    static func serve(
        open: () throws(StoreError) -> Writer, queue: WriteQueue, maxBatch: Int, ready: Completion<Writer.Started>
    ) {
        let writer: Writer
        do throws(StoreError) {
            writer = try open()
        } catch {
            ready.resolve(.failure(error))
            return
        }
        ready.resolve(.success(Started(warnings: writer.warnings, upgrade: writer.upgrade, anonymousIds: writer.anonymousIds)))
        writer.run(queue: queue, maxBatch: maxBatch)
    }

    /// Writes batches until the queue is closed and drained, then lets the engine close.
    func run(queue: WriteQueue, maxBatch: Int) {
        while let first = queue.next(maximum: maxBatch) {
            write(first, from: queue, maxBatch: maxBatch)
        }
        durability.stop()
        closing()
    }

    // MARK: - Batches

    /// One transaction for `first` and for what arrives while the previous commit is being flushed;
    /// if it cannot commit, or a notification fails in it (they are written without savepoints,
    /// `Isolation.transaction`), each item gets its own transaction.
    ///
    /// The transaction stays open, taking in new items, until the flusher has put the previous
    /// commit on disk. So the writer works while the disk does, and a commit holds everything that
    /// arrived during one flush: as few commits (and WAL pages) as when the writer waited for each.
    private func write(_ first: [WriteItem], from queue: WriteQueue, maxBatch: Int) {
        var plan = BatchPlan(maxBatch: maxBatch)
        var healthChecks: [Completion<Void>] = []
        var work: [WriteItem] = []
        var outcomes: [Result<StoreOutcome, StoreError>?] = []
        work.reserveCapacity(first.count)
        outcomes.reserveCapacity(first.count)
        var failure: StoreError?
        var next: [WriteItem]? = first
        while let items = next {
            var looked = false
            for item in items {
                let action = plan.take(isHealthCheck: item.isHealthCheck)
                switch action {
                case .answerAtEnd:
                    if case .healthCheck(let completion) = item { healthChecks.append(completion) }
                case .keepForFallback:
                    work.append(item)
                case .beginAndApply, .apply:
                    work.append(item)
                    do throws(StoreError) {
                        if action == .beginAndApply {
                            try begin { () throws(StoreError) in try lookAhead(items) }
                            looked = true
                        } else if !looked {
                            try lookAhead(items)
                            looked = true
                        }
                        outcomes.append(try apply(item, isolation: .transaction))
                    } catch {
                        failure = error
                        plan.transactionFailed()
                    }
                }
            }
            let room = plan.room
            next = room > 0 ? queue.nextWhileFlushing(maximum: room) : nil
        }
        finish(work, outcomes, plan: plan, failure: failure, queue: queue)
        if !healthChecks.isEmpty {
            let result = checkWriteLock()
            for completion in healthChecks { completion.resolve(result) }
        }
    }

    /// Ends the batch as `plan` says: commits the open transaction holding `items` and hands their
    /// answers to the flusher; after `failure` (or a failed commit) rolls back and commits each
    /// item alone.
    private func finish(
        _ items: [WriteItem], _ outcomes: [Result<StoreOutcome, StoreError>?], plan: BatchPlan, failure: StoreError?,
        queue: WriteQueue
    ) {
        var commitFailed = false
        if let failure {
            noteFailure(failure)
        } else if plan.ending() == .commit {
            do throws(StoreError) {
                try trimRejects(after: items)
                try commit()
            } catch {
                noteFailure(error)
                commitFailed = true
            }
        }
        switch plan.ending(commitFailed: commitFailed) {
        case .nothing: break
        case .commit: answerAfterFlush(items, outcomes, queue: queue)
        case .oneByOne:
            rollback()
            commitOneByOne(items, queue: queue)
        }
    }

    /// Gives the answers of a commit to the flusher: they are released once the commit is on disk.
    private func answerAfterFlush(
        _ items: [WriteItem], _ outcomes: [Result<StoreOutcome, StoreError>?], queue: WriteQueue, retriedAlone: Bool = false
    ) {
        let onCommit = onCommit
        let committed = CommittedBatch(items: items.count, outboxApps: outboxApps, retriedAlone: retriedAlone)
        outboxApps = []
        // The highest position this commit gave, read now, before the next transaction begins; it
        // becomes readable once the commit is on disk. A read that fails leaves it where it is
        // (the next commit that writes events reads again).
        let durable = durableEvents
        let written =
            eventsWritten ? durable.flatMap { try? connection.query($0.highestSQL, []).first?.first?.integerValue } : nil
        eventsWritten = false
        queue.flushStarted()
        durability.afterFlush { failure in
            if failure == nil, let written { durable?.raise(to: written) }
            if failure == nil { onCommit?(committed) }
            for (item, outcome) in zip(items, outcomes) {
                Self.resolve(item, failure.map { .failure($0) } ?? outcome)
            }
            queue.flushFinished()
        }
    }

    /// The fallback: so that one bad item cannot fail the others, each item commits (or fails) alone.
    private func commitOneByOne(_ items: [WriteItem], queue: WriteQueue) {
        var lockFailure: StoreError?
        for item in items {
            // BEGIN does not depend on the item: once it failed after the busy timeout, do not wait again per item.
            if let lockFailure {
                Self.resolve(item, .failure(lockFailure))
                continue
            }
            do throws(StoreError) {
                try begin()
            } catch {
                noteFailure(error)
                lockFailure = error
                Self.resolve(item, .failure(error))
                continue
            }
            var outcome: Result<StoreOutcome, StoreError>?
            do throws(StoreError) {
                outcome = try apply(item, isolation: .savepoint)
                if case .failure(let error) = outcome { throw error }
                try trimRejects(after: [item])
                try commit()
            } catch {
                noteFailure(error)
                rollback()
                if case .rejects(let pending, _) = item { rejectsFailed(pending, error, queue: queue) }
                Self.resolve(item, .failure(error))
                continue
            }
            answerAfterFlush([item], [outcome], queue: queue, retriedAlone: true)
        }
    }

    /// A write of the reject log failed on its own (its batch is back in `pending`): reported, and
    /// tried again after the rejects' interval, so the entries are written, and the health check
    /// clears, soon after room is back, without waiting for the next reject. Until then it is
    /// tried every interval; a closed queue ends the retries (the store's close writes them last).
    private func rejectsFailed(_ pending: PendingRejects, _ error: StoreError, queue: WriteQueue) {
        onRejectsFailed?(error)
        DispatchQueue.global().asyncAfter(deadline: .after(pending.interval)) {
            _ = queue.enqueue(.rejects(pending, nil))
        }
    }

    // MARK: - Transactions

    /// Begins a transaction and runs `opening` in it (reads only), on PostgreSQL in one round trip.
    private func begin(opening: () throws(StoreError) -> Void = {}) throws(StoreError) {
        try connection.beginWrite { () throws(StoreError) in
            // Run again from the start when the engine begins again (after reconnecting).
            storedUUIDs = nil
            heldUUIDs = nil
            preparedHandOff = nil
            try opening()
        }
        transactionIsSound = true
        rejectsInTransaction.removeAll()
    }

    /// Where the engine sends statements together (PostgreSQL): asks which notifications among
    /// `items` are stored, adding them to `storedUUIDs`, and lets the hand-off read ahead for
    /// them, all in one round trip (several when they outgrow a pipeline, for groups of more than
    /// about fifty notifications). One that reads in-process (SQLite) looks up and reads each
    /// at its turn as cheaply.
    private func lookAhead(_ items: [WriteItem]) throws(StoreError) {
        let writes = items.compactMap { item -> NotificationWrite? in
            guard case .store(let write, _) = item else { return nil }
            return write
        }
        guard !writes.isEmpty, let lookup = try connection.sendStoredLookup(writes) else { return }
        try prepareHandOff(writes.map(\.record))
        try connection.flushSent()
        let (stored, held) = try lookup.stored()
        storedUUIDs = (storedUUIDs ?? []).union(stored)
        heldUUIDs = (heldUUIDs ?? []).union(held)
    }

    /// Lets the hand-off read ahead for `records`, in order, each once, but those known stored
    /// (any of them may still turn out to be: reading ahead for it costs a few rows).
    private func prepareHandOff(_ records: [NotificationRecord]) throws(StoreError) {
        var seen = storedUUIDs ?? []
        let records = records.filter { seen.insert($0.notificationUUID).inserted }
        guard records.count > 1 else { return }
        let transaction = WriteTransaction(connection: connection, anonymousIds: anonymousIds)
        defer { transaction.invalidate() }
        do {
            preparedHandOff = try handOff.prepared(for: records, in: transaction)
        } catch {
            throw (error as? StoreError) ?? StoreError(.invalid, "reading ahead for the hand-off failed: \(error)")
        }
    }

    /// Commits the open transaction, unless a flush has failed: then nothing more is committed
    /// (the caller rolls back), so no reader sees what could not be made durable. A commit made
    /// while a flush runs (the fallback's one-by-one commits, a full batch, a closing queue) is
    /// made before that flush's outcome is known: if it fails, such a commit stays visible, but its
    /// answers fail with it, since every later flush reports the first failure.
    private func commit() throws(StoreError) {
        if let failure = durability.failure { throw failure }
        try connection.run("COMMIT", [])
        rejectsInTransaction.removeAll()
        recentIOFailure = nil
    }

    private func rollback() {
        // If ROLLBACK itself fails, the engine has already ended the transaction or will on close.
        if connection.isInTransaction { _ = try? connection.run("ROLLBACK", []) }
        for taken in rejectsInTransaction { taken.pending.restore(taken.batch) }
        rejectsInTransaction.removeAll()
    }

    /// Keeps an I/O failure (a full disk among them) for the health check.
    private func noteFailure(_ error: StoreError) {
        if error.code == .io { recentIOFailure = (error, .now) }
        damage?.note(error)
    }

    /// Takes and releases the write lock: the database is reachable, writable and not locked by
    /// others, and no write failed for lack of disk (or an I/O error) lately without a commit since.
    private func checkWriteLock() -> Result<Void, StoreError> {
        if let damaged = damage?.failure { return .failure(damaged) }
        if let problem = durability.problem { return .failure(problem) }
        if let recent = recentIOFailure, case let age = recent.at.duration(to: .now), age < Self.recentFailureWindow {
            return .failure(
                StoreError(
                    .io, "a write failed \(age.components.seconds) s ago and none has committed since: \(recent.error.message)"))
        }
        do throws(StoreError) {
            try connection.beginWrite()
            try connection.run("ROLLBACK", [])
            return .success(())
        } catch {
            rollback()
            return .failure(error)
        }
    }

    private static func resolve(_ item: WriteItem, _ outcome: Result<StoreOutcome, StoreError>?) {
        let result = outcome ?? .failure(StoreError(.unavailable, "the writer produced no outcome"))
        switch item {
        case .store(_, let completion): completion.resolve(result)
        case .work(_, let completion): completion.resolve(result.map { _ in () })
        // Nobody needs an outcome of rejects: written, or the failure that lost them.
        case .rejects(_, let completion): completion?.resolve(outcome.map { $0.map { _ in () } } ?? .success(()))
        case .healthCheck: break
        }
    }
}

extension WriteItem {
    var isHealthCheck: Bool {
        if case .healthCheck = self { return true }
        return false
    }
}
