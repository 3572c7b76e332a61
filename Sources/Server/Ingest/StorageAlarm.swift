import Dispatch
import Synchronization

/// Says when storage starts failing and when it works again: one line each, not one per refused
/// notification or failed health check. Apple retries what was answered 503, so the answers
/// alone are right, but an operator reading the log would otherwise see nothing while
/// notifications wait or `/health` is red (a full disk, a database another process locks, a
/// PostgreSQL server down; `revenuedot_storage_failures_total` counts the notifications).
package final class StorageAlarm: Sendable {
    /// What is failing, as bits: `checkFailing` (the health check: a read and the write lock),
    /// `storeFailing` (storing notifications), `damaged` (the database file, which nothing stored
    /// later mends). 0: working.
    private let failing = Atomic<Int>(0)
    /// When the health check last failed, in monotonic milliseconds.
    private let checkFailedAtMs = Atomic<Int64>(0)
    private let log: Log
    private let nowMs: @Sendable () -> Int64

    private static let checkFailing = 1
    private static let storeFailing = 2
    private static let damaged = 4

    /// How long a failed health check outweighs stores that succeed: a probe polling every few
    /// seconds keeps it failing while it fails; with no probe, storing clears it after this.
    package static let checkOutweighsStoresMs: Int64 = 15_000

    package init(log: Log, nowMs: @escaping @Sendable () -> Int64 = { Int64(DispatchTime.now().uptimeNanoseconds / 1_000_000) }) {
        self.log = log
        self.nowMs = nowMs
    }

    /// Whether storage is failing now: since a failure, until the health check passes, or for a
    /// failure to store, until something is stored again (`revenuedot_storage_failing`).
    package var isFailing: Bool { failing.load(ordering: .relaxed) != 0 }

    /// A notification could not be stored because of `error`; or, with `healthCheck`, the
    /// health check failed, which says nothing yet of notifications (a database busy past the
    /// check's timeout still stores them, later). `damaged`: the error found the database file
    /// damaged (`StoreError.isDamagedFile`), which stays so until a restart.
    package func failed(_ error: String, healthCheck: Bool = false, damaged: Bool = false) {
        let kind = damaged ? Self.damaged : healthCheck ? Self.checkFailing : Self.storeFailing
        if healthCheck { checkFailedAtMs.store(nowMs(), ordering: .relaxed) }
        let before = failing.bitwiseOr(kind, ordering: .acquiringAndReleasing).oldValue
        // Said once per kind; a failed check after a failure to store says nothing new.
        guard before & kind == 0, !(kind == Self.checkFailing && before != 0), before & Self.damaged == 0 else { return }
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

    /// A notification was stored (or found stored already): storing works. A health check that
    /// failed in the last `checkOutweighsStoresMs` stays failing until one passes (it also needs
    /// a read, which storing does not), so that stores between failed checks do not say
    /// recovered and failing again each time. Not a recovery of a damaged file: writes that miss
    /// its damaged pages still succeed.
    package func stored() {
        let checkIsRecent = nowMs() - checkFailedAtMs.load(ordering: .relaxed) < Self.checkOutweighsStoresMs
        clear(checkIsRecent ? Self.storeFailing : Self.checkFailing | Self.storeFailing)
    }

    /// The health check passed: the database answers a read and gives the write lock, so
    /// storing works too.
    package func checkPassed() { clear(Self.checkFailing | Self.storeFailing) }

    private func clear(_ kinds: Int) {
        // Read first: the common case (nothing was failing) writes nothing shared.
        let before = failing.load(ordering: .acquiring)
        guard before & kinds != 0, before & Self.damaged == 0 else { return }
        let (cleared, after) = failing.bitwiseAnd(~kinds, ordering: .acquiringAndReleasing)
        // Said by the clear that ended the last failure, once.
        guard cleared & kinds != 0, after == 0 else { return }
        log.info("storage.recovered", "storage works again: notifications are stored")
    }
}
