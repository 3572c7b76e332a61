import Synchronization

/// How many HTTP workers may read storage themselves at once: all but one. A read done on the
/// worker saves the hand-off to the storage pool (suspending the connection, waking a pool
/// thread, resuming it), which costs `GET /v1/subscribers` about 30% of its throughput; a
/// database that stops answering then holds at most that many workers, and the one left
/// serves the rest (`/health`, `/metrics`, notifications), handing its reads to the pool.
package final class InlineReads: Sendable {
    private let reading = Atomic<Int>(0)
    private let limit: Int

    /// For a server with `workers` HTTP workers.
    package init(workers: Int) { limit = max(workers - 1, 0) }

    /// Whether this worker may read now; if so, `end()` when it is done.
    package func begin() -> Bool {
        if reading.add(1, ordering: .acquiringAndReleasing).newValue <= limit { return true }
        reading.subtract(1, ordering: .acquiringAndReleasing)
        return false
    }

    package func end() {
        reading.subtract(1, ordering: .acquiringAndReleasing)
    }
}
