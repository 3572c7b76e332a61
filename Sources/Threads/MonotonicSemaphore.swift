import Dispatch
import Glibc

/// A counting semaphore whose timed waits count time on the monotonic clock.
///
/// `DispatchSemaphore.wait(timeout:)` on Linux turns its deadline into a time of the wall clock
/// (`sem_timedwait` takes `CLOCK_REALTIME`). While NTP slews that clock, a wait ends early or late
/// by the slew, and a clock set back (by hand, by an NTP step, by a VM resumed) stretches every
/// wait by the step: a scheduler sleeping between ticks, a webhook worker between polls or a
/// shutdown deadline could wait hours. This one waits on a condition variable clocked on
/// `CLOCK_MONOTONIC`, the clock `DispatchTime` counts its uptime on, so a deadline of
/// `.now() + 5 s` is five seconds whatever the wall clock does.
///
/// For the waits that have a deadline; a wait without one is the same either way, and the hot
/// paths (the write queue, the WAL flusher) keep `DispatchSemaphore`.
public final class MonotonicSemaphore: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    /// Signals not yet taken by a wait; guarded by `mutex`.
    private var count: Int

    /// A semaphore holding `value` signals.
    public init(value: Int = 0) {
        precondition(value >= 0, "a semaphore starts with no fewer than 0 signals")
        count = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Adds a signal, waking one waiter if any waits.
    public func signal() {
        pthread_mutex_lock(mutex)
        count += 1
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Takes a signal, waiting as long as it takes for one.
    public func wait() {
        pthread_mutex_lock(mutex)
        while count == 0 { pthread_cond_wait(condition, mutex) }
        count -= 1
        pthread_mutex_unlock(mutex)
    }

    /// Takes a signal, waiting for one until `deadline` (`.distantFuture`: for good; a deadline
    /// passed already: only a signal there now). `.timedOut` when none came by then.
    public func wait(timeout deadline: DispatchTime) -> DispatchTimeoutResult {
        if deadline == .distantFuture {
            wait()
            return .success
        }
        var until = Self.monotonic(deadline)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while count == 0 {
            // EINTR never comes from a condition wait; anything but a signal or the deadline is spurious.
            if pthread_cond_timedwait(condition, mutex, &until) == ETIMEDOUT, count == 0 { return .timedOut }
        }
        count -= 1
        return .success
    }

    /// `deadline` as a time of `CLOCK_MONOTONIC` (`DispatchTime.uptimeNanoseconds` on Linux).
    private static func monotonic(_ deadline: DispatchTime) -> timespec {
        let nanoseconds = deadline.uptimeNanoseconds
        let seconds = min(nanoseconds / 1_000_000_000, UInt64(Int.max))
        return timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds % 1_000_000_000))
    }
}
