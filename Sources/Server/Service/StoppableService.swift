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
/// When some still run `patience` after the ask, `waiting` is told, once, the longest the stop
/// may yet take: until the latest of their own limits, or the shared deadline.
@discardableResult
package func stopTogether(
    _ services: [any StoppableService], before deadline: ContinuousClock.Instant, patience: Duration? = nil,
    waiting: (_ atMost: Duration) -> Void = { _ in }
) -> Bool {
    for service in services { service.beginStop() }
    let asked = ContinuousClock.now
    func until(_ service: any StoppableService) -> ContinuousClock.Instant {
        service.stopLimit.map { min(deadline, asked + $0) } ?? deadline
    }
    func remaining(_ until: ContinuousClock.Instant) -> DispatchTime {
        .after(max(.zero, ContinuousClock.now.duration(to: until)))
    }
    if let patience {
        let moment = asked + patience
        let running = services.filter { !$0.waitStopped(until: remaining(min(moment, until($0)))) }
        if let latest = running.map(until).max() {
            waiting(max(.zero, ContinuousClock.now.duration(to: latest)))
        }
    }
    var stoppedAll = true
    for service in services {
        let stopped = service.waitStopped(until: remaining(until(service)))
        stoppedAll = stoppedAll && stopped
    }
    return stoppedAll
}

/// Services stopped together, as one step of a stop in order (`stopInOrder`).
package struct StopPhase: Sendable {
    package var services: [any StoppableService]
    /// Whether one of them still running at the deadline makes the stop a failure (its writes
    /// may still wait for storage); false for services whose late stop says nothing about it.
    package var counts: Bool
    /// What a stop waits for while the phase runs on, for people ("webhook sends in flight").
    package var name: String

    package init(_ services: [any StoppableService], counts: Bool, name: String = "") {
        self.services = services
        self.counts = counts
        self.name = name
    }
}

/// Stops `phases` one after another, all before `deadline`: each phase's services together
/// (`stopTogether`), and the next phase only once the last one stopped or timed out. True when
/// every phase that `counts` stopped in time.
/// A named phase still running `patience` after it was asked to stop is told to `waiting`, with
/// the longest it may yet take, so that a stop that waits says what on.
@discardableResult
package func stopInOrder(
    _ phases: [StopPhase], before deadline: ContinuousClock.Instant, patience: Duration = .seconds(2),
    waiting: (_ phase: String, _ atMost: Duration) -> Void = { _, _ in }
) -> Bool {
    var stoppedAll = true
    for phase in phases {
        let stopped = stopTogether(
            phase.services, before: deadline, patience: phase.name.isEmpty ? nil : patience,
            waiting: { waiting(phase.name, $0) })
        if phase.counts, !stopped { stoppedAll = false }
    }
    return stoppedAll
}

/// A pass running on threads that a `DispatchGroup` tracks, as a service: asking it to stop
/// runs `stop`; it has stopped when the group is empty.
package struct GroupedPass: StoppableService {
    let group: DispatchGroup
    let stop: @Sendable () -> Void

    package init(_ group: DispatchGroup, stop: @escaping @Sendable () -> Void) {
        self.group = group
        self.stop = stop
    }

    package func beginStop() { stop() }
    package func waitStopped(until deadline: DispatchTime) -> Bool { group.wait(timeout: deadline) == .success }
    package var stopLimit: Duration? { nil }
}
