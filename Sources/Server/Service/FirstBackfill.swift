import Foundation
import Synchronization
import Threads

/// The first automatic backfill since the server started, which the timers wait for: a renewal
/// Apple sent while the server was down must not be taken for an expiry first. Shared by every
/// generation of services, so a reload before it completes keeps the timers waiting as the start
/// did, for what is left of the wait.
final class FirstBackfill: Sendable {
    private struct State {
        var giveUpAt: ContinuousClock.Instant?
        var completed = false
    }
    private let state = Mutex(State())

    /// The server starts: the timers wait for a first backfill for at most `seconds` from now.
    func begin(waitingAtMost seconds: Double) {
        state.withLock { $0.giveUpAt = ContinuousClock.now + .seconds(seconds) }
    }

    /// A first pass completed: the timers wait no longer, this generation's or a later one's.
    func complete() {
        state.withLock { $0.completed = true }
    }

    /// How long the timers still wait for a first backfill, in seconds; nil when they wait no
    /// longer (one completed, the wait is over, or the server has not begun one).
    var remainingWait: Double? {
        state.withLock { state in
            guard !state.completed, let giveUpAt = state.giveUpAt else { return nil }
            let left = ContinuousClock.now.duration(to: giveUpAt)
            return left > .zero ? left.inSeconds : nil
        }
    }
}
