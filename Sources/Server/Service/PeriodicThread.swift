import Dispatch
import Foundation
import Synchronization
import Threads

/// A named thread that runs a pass now (or after one interval) and then every interval, until
/// stopped: the loop of serve's backfill, consumption answers, reconciliation and contacts.
package final class PeriodicThread: Sendable {
    private let stopping = Mutex(false)
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchGroup()

    /// Whether a stop was asked: a long pass checks it between items.
    package var isStopping: Bool { stopping.withLock { $0 } }

    /// Starts `pass` on a thread named `name` (as `NamedThread` names it): at once when
    /// `immediately` (`first` instead, when given), and every `interval` seconds after.
    package func start(
        _ name: String, every interval: Double, immediately: Bool, first: (@Sendable () -> Void)? = nil,
        _ pass: @escaping @Sendable () -> Void
    ) {
        finished.enter()
        NamedThread.start(name) { [self] in
            defer { finished.leave() }
            if immediately { (first ?? pass)() }
            while wake.wait(timeout: .now() + interval) == .timedOut && !isStopping { pass() }
        }
    }

    /// Waits `seconds` inside a pass; false, at once, when a stop is asked meanwhile.
    package func pause(_ seconds: Double) -> Bool {
        guard wake.wait(timeout: .now() + seconds) == .timedOut else {
            // The stop's wake-up is the loop's too: give it back.
            wake.signal()
            return false
        }
        return !isStopping
    }

    /// Asks the thread to stop after its pass; returns at once.
    package func beginStop() {
        let first = stopping.withLock { stopping in
            defer { stopping = true }
            return !stopping
        }
        if first { wake.signal() }
    }

    /// Waits until the thread ended (true) or `deadline` passed (false).
    package func waitStopped(until deadline: DispatchTime) -> Bool {
        finished.wait(timeout: deadline) == .success
    }
}
