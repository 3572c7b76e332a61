import Dispatch
import Threads

/// A part of the running server with threads of its own. `RevenueDotService` stops its services
/// as a loop over lists (`stopTogether`): every service of a list is asked to stop, then each is
/// waited for until the shared deadline or its own `stopLimit`, whichever comes first.
package protocol StoppableService: Sendable {
    /// Asks it to stop after the work in hand; returns at once. Calling it again does nothing.
    func beginStop()
    /// Waits until it stopped or `deadline` passed; true when it stopped (or never started).
    func waitStopped(until deadline: DispatchTime) -> Bool
    /// The longest a stop waits for it; nil for as long as the shared deadline allows.
    var stopLimit: Duration? { get }
}

/// Stops `services` together; true when every one stopped in time. All are asked first, so
/// their stops overlap, then each is waited for until `deadline` or its `stopLimit` from now.
@discardableResult
package func stopTogether(_ services: [any StoppableService], before deadline: ContinuousClock.Instant) -> Bool {
    for service in services { service.beginStop() }
    let asked = ContinuousClock.now
    var stoppedAll = true
    for service in services {
        let until = service.stopLimit.map { min(deadline, asked + $0) } ?? deadline
        let stopped = service.waitStopped(until: .after(max(.zero, ContinuousClock.now.duration(to: until))))
        stoppedAll = stoppedAll && stopped
    }
    return stoppedAll
}
