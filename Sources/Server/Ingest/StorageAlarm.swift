import Synchronization

/// Says when storage starts failing and when it works again: one line each, not one per refused
/// notification or failed health check. Apple retries what was answered 503, so the answers
/// alone are right, but an operator reading the log would otherwise see nothing while
/// notifications wait or `/health` is red (a full disk, a database another process locks, a
/// PostgreSQL server down; `revenuedot_storage_failures_total` counts the notifications).
package final class StorageAlarm: Sendable {
    /// 0: working; 1: the health check failed; 2: storing failed (said even after a failed check);
    /// 3: the database file is damaged, which nothing stored later mends.
    private let failing = Atomic<Int>(0)
    private let log: Log

    package init(log: Log) {
        self.log = log
    }

    /// Whether storage is failing now: since a failure, until something is stored again or the
    /// health check passes (`revenuedot_storage_failing`).
    package var isFailing: Bool { failing.load(ordering: .relaxed) != 0 }

    /// A notification could not be stored because of `error`; or, with `healthCheck`, the
    /// health check failed, which says nothing yet of notifications (a database busy past the
    /// check's timeout still stores them, later). `damaged`: the error found the database file
    /// damaged (`StoreError.isDamagedFile`), which stays so until a restart.
    package func failed(_ error: String, healthCheck: Bool = false, damaged: Bool = false) {
        let level = damaged ? 3 : healthCheck ? 1 : 2
        // Said once per level: a store failing after a failed check is said too.
        guard failing.max(level, ordering: .acquiringAndReleasing).oldValue < level else { return }
        let message =
            damaged
            ? "the database file is damaged: /health answers 503, and what cannot be stored is answered 503 (Apple "
                + "retries it), until the file is restored from a backup (revenuedot restore) and the server restarted"
            : healthCheck
                ? "storage failed the health check: /health answers 503 until it passes (notifications wait for storage, "
                    + "and are answered 503 if it fails them)"
                : "notifications are answered 503 until storage works again (Apple retries them)"
        log.error("storage.failing", message, [("error", .text(error))])
    }

    /// A notification was stored (or found stored already). Not a recovery of a damaged file:
    /// writes that miss its damaged pages still succeed.
    package func stored() {
        // Read first: the common case (nothing was failing) writes nothing shared.
        let level = failing.load(ordering: .acquiring)
        guard level != 0, level != 3,
            failing.compareExchange(expected: level, desired: 0, ordering: .acquiringAndReleasing).exchanged
        else { return }
        log.info("storage.recovered", "storage works again: notifications are stored")
    }
}
