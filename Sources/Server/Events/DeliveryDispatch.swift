import Storage

/// What a webhook's worker decides, as a value: which deliveries are in flight, which may be
/// picked next, what a sender does next. The worker's threads only carry these decisions out
/// (read storage, send, commit), so the rules are table-tested without threads.
///
/// A delivery stays in flight from the moment it is picked until its outcome is committed and
/// a later read began: a read that started before that commit must not see it as due again.
package struct DeliveryDispatch: Sendable {
    /// Deliveries queued or being sent (by event id), at most `capacity`.
    private(set) var inFlight: Set<String> = []
    /// Deliveries whose outcome is committed, still in `inFlight` until the next read begins.
    private(set) var finished: Set<String> = []
    /// Deliveries picked, not yet sent, each with the moment it must be sent before (`take`).
    private(set) var queue: [(delivery: DueDelivery, sendBefore: ContinuousClock.Instant?)] = []
    private(set) var running = false
    package let capacity: Int

    package init(capacity: Int) { self.capacity = capacity }

    /// What a sender thread does next.
    package enum Next: Equatable {
        case stop
        case wait
        case send(DueDelivery)
        /// Not sent: its claim may have passed to another node (this one was frozen, or waited
        /// too long), which may have sent it and the customer's later events. It leaves
        /// `inFlight` at the next read, which claims it again if no one else has.
        case lapsed(DueDelivery)
    }

    package mutating func start() { running = true }

    /// Stops picking; true when it was running (the caller then wakes every thread once).
    package mutating func stop() -> Bool {
        defer { running = false }
        return running
    }

    /// Before a read of due deliveries: outcomes committed so far leave `inFlight`. The read must
    /// skip `exclude` and pick at most `room`; nil when there is nothing to read for.
    ///
    /// A read walks the deliveries in flight before it reaches new ones, so it waits until the
    /// senders' queue is empty or half the capacity is free: behind a backlog, a read for every
    /// outcome committed cost more than the sending.
    package mutating func beginRead() -> (exclude: Set<String>, room: Int)? {
        inFlight.subtract(finished)
        finished.removeAll()
        guard running, inFlight.count < capacity, queue.isEmpty || 2 * inFlight.count <= capacity else { return nil }
        return (inFlight, capacity - inFlight.count)
    }

    /// Takes what the read found: queues each delivery not in flight, up to `capacity`; returns
    /// how many were queued (senders to wake). Claimed deliveries come with `sendBefore`: the
    /// moment after which an attempt could outlast the claim.
    package mutating func take(_ due: [DueDelivery], sendBefore: ContinuousClock.Instant? = nil) -> Int {
        var taken = 0
        for delivery in due where inFlight.count < capacity && !inFlight.contains(delivery.eventId) {
            inFlight.insert(delivery.eventId)
            queue.append((delivery, sendBefore))
            taken += 1
        }
        return taken
    }

    /// A sender's next step at `now`.
    package mutating func next(at now: ContinuousClock.Instant = .now) -> Next {
        guard running else { return .stop }
        guard !queue.isEmpty else { return .wait }
        let (delivery, sendBefore) = queue.removeFirst()
        if let sendBefore, now >= sendBefore {
            finished.insert(delivery.eventId)
            return .lapsed(delivery)
        }
        return .send(delivery)
    }

    /// The outcome of `eventId` is committed: it leaves `inFlight` at the next read.
    package mutating func recorded(_ eventId: String) { finished.insert(eventId) }

    /// How long to wait before committing a known outcome again after its `attempt`-th commit
    /// failed (storage busy or full), in seconds: a second more each time, at most 30. The
    /// outcome is committed again rather than the event sent again, since a 2xx answer must
    /// not lead to a second delivery.
    package static func pauseBeforeRecordingAgain(afterAttempt attempt: Int) -> Double {
        Double(min(max(attempt, 1), 30))
    }
}
