import Dispatch
import Synchronization

/// Rejects waiting to be written, so that a flood of refused requests costs the writer one small
/// write a second instead of one per request.
///
/// The reject log is for the operator (counts by status, the newest reasons), not a promise to a
/// sender: a refused request is answered at once, whether or not its entry is written yet. A
/// write of its own per reject would make the writer commit and flush, beside every
/// notification, for junk posted as fast as a client can. Instead the first reject after a quiet
/// second is written with the next commit, and the ones that follow within the second are
/// gathered and written together when it is over. Counts lose nothing; of the reasons, the
/// newest `RejectLog.recentLimit` are kept, which is all the log keeps anyway.
final class PendingRejects: Sendable {
    /// What one write adds to the log.
    struct Batch: Sendable {
        var counts: [String: Int] = [:]
        /// Oldest first, the newest `RejectLog.recentLimit` at most.
        var recent: [Reject] = []

        var isEmpty: Bool { counts.isEmpty }
    }

    private struct State {
        var batch = Batch()
        /// Whether a write of the batch is queued or waiting for its turn.
        var scheduled = false
        var lastWrite: ContinuousClock.Instant?
    }

    private let state = Mutex(State())
    /// The least time between two writes of rejects.
    let interval: Duration

    init(interval: Duration = .seconds(1)) {
        self.interval = interval
    }

    /// Adds `reject`. Returns how long to wait before queueing the write that takes the batch,
    /// when none is scheduled yet (nil: one is, and will take this one too).
    func add(_ reject: Reject) -> Duration? {
        state.withLock { state in
            state.batch.counts[reject.status, default: 0] += 1
            state.batch.recent.append(reject)
            if state.batch.recent.count > RejectLog.recentLimit { state.batch.recent.removeFirst() }
            guard !state.scheduled else { return nil }
            state.scheduled = true
            guard let last = state.lastWrite else { return .zero }
            return max(.zero, last + interval - .now)
        }
    }

    /// Whether rejects wait to be written.
    var hasPending: Bool { state.withLock { !$0.batch.isEmpty } }

    /// Puts back a batch `take` gave to a write that did not commit, before what came since: the
    /// next write takes it again (a rejects item applied again after a rollback, the next reject's
    /// write, or the one the store queues when it closes).
    func restore(_ batch: Batch) {
        guard !batch.isEmpty else { return }
        state.withLock { state in
            for (status, count) in batch.counts { state.batch.counts[status, default: 0] += count }
            state.batch.recent = Array((batch.recent + state.batch.recent).suffix(RejectLog.recentLimit))
        }
    }

    /// Everything pending, for the writer to write now; the next reject schedules another write.
    func take() -> Batch {
        state.withLock { state in
            defer {
                state.batch = Batch()
                state.scheduled = false
                state.lastWrite = .now
            }
            return state.batch
        }
    }

    /// Writes a batch `take` gave into the log (`RejectRows`).
    func write(_ batch: Batch, in connection: any StatementRunner) throws(StoreError) {
        try RejectRows.record(batch, in: connection)
    }

    /// Trims the log to its newest `RejectLog.recentLimit` entries: once per transaction with
    /// rejects in it, not per batch.
    func trim(in connection: any StatementRunner) throws(StoreError) {
        try RejectRows.trim(in: connection)
    }
}
