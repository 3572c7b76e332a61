import Foundation
import Storage
import Threads

/// Delivers one app's outbox to its webhook: at least once, in order per customer, several
/// customers at a time.
///
/// A dispatcher thread picks due deliveries (`Deliveries.due`: the earliest pending event of
/// each customer) and hands them to `webhook.concurrency` sender threads. A delivery stays
/// `pending` in storage while it is in flight, which keeps the customer's later events back;
/// its outcome is committed before the next one of that customer can start. A restart resumes
/// from storage: anything not recorded as delivered is sent again, with the same body and id.
package final class DeliveryWorker: StoppableService {
    package let appId: String
    /// The webhook's id in the app's `webhooks`.
    package let webhook: String
    private let sender: WebhookSender
    private let store: Store
    private let metrics: Metrics
    private let clock: @Sendable () -> Date
    private let pollInterval: Double
    private let state: Locked<DeliveryDispatch>
    /// This node's name in the deliveries it claims, where several share the database.
    private let node: String
    /// How long a claim lasts: past the longest attempt (`timeoutSeconds`) and its commit, so a
    /// live node's claims never pass to another; a dead node's pass after it.
    private let leaseMs: Int64
    /// Takes a line for every failed attempt and every dead letter.
    private let log: Log?
    /// `webhook.failed` and `webhook.dead_letter` lines, each at most one a second.
    private let failureLines: AllowedLines
    private let deadLines: AllowedLines
    /// Reads (or claims) of due deliveries that failed.
    private let picking: FailureStreak
    private let wake = MonotonicSemaphore()
    private let work = DispatchSemaphore(value: 0)
    private let finished = DispatchGroup()
    /// Deliveries sent whose outcome is not committed yet (nor given up on: the store closed).
    private let unsettled = DispatchGroup()
    /// The worker this one replaced at a reload, until it has stopped: this one is not stopped
    /// before it is, so a reload that follows does not start a third beside it.
    private let predecessor = Locked<DeliveryWorker?>(nil)

    package init(
        app: AppConfig, webhook: WebhookConfig, store: Store, metrics: Metrics,
        clock: @escaping @Sendable () -> Date = Date.init, pollInterval: Double = 0.2, node: String, log: Log? = nil
    ) {
        appId = app.id
        self.log = log
        self.node = node
        leaseMs = Int64(max(10, 3 * webhook.timeoutSeconds)) * 1000
        self.webhook = webhook.id
        picking = FailureStreak(
            task: "webhook_pick", fields: [("app", .text(app.id)), ("webhook", .text(webhook.id))], log: log, metrics: metrics)
        sender = WebhookSender(config: webhook)
        self.store = store
        self.metrics = metrics
        self.clock = clock
        self.pollInterval = pollInterval
        state = Locked(DeliveryDispatch(capacity: webhook.concurrency * 2))
        let fields: [(String, LogValue)] = [("app", .text(app.id)), ("webhook", .text(webhook.id))]
        failureLines = AllowedLines(perSecond: 1, clock: clock) { leftOut in
            log?.warning(
                "webhook.failed", "more failed attempts than one a second: left out of the log",
                fields + [("left_out", .integer(Int64(leftOut)))])
        }
        deadLines = AllowedLines(perSecond: 1, clock: clock) { leftOut in
            log?.error(
                "webhook.dead_letter",
                "more dead letters than one a second: left out of the log; revenuedot events list --status dead lists them",
                fields + [("left_out", .integer(Int64(leftOut)))])
        }
    }

    /// Starts its threads. After a reload, `predecessor` is the worker of the same app and
    /// webhook it replaces: nothing is picked until that one has stopped and its outcomes are
    /// committed, since storage still shows its deliveries in flight as pending and this worker
    /// would send them again.
    package func start(after predecessor: DeliveryWorker? = nil) {
        self.predecessor.withLock { $0 = predecessor }
        state.withLock { $0.start() }
        for index in 0..<sender.config.concurrency {
            finished.enter()
            NamedThread.start("webhook-\(index)-\(appId)\(webhook.isEmpty ? "" : "-" + webhook)") { [self] in
                sendLoop()
                finished.leave()
            }
        }
        finished.enter()
        NamedThread.start("webhooks-\(appId)\(webhook.isEmpty ? "" : "-" + webhook)") { [self] in
            while state.withLock({ $0.running }), !predecessorStopped(until: .now() + pollInterval) {}
            dispatchLoop()
            finished.leave()
        }
    }

    /// Looks for due deliveries now instead of at the next poll (new events were committed).
    /// Nothing while not running: a worker not started yet looks when it starts, and the
    /// nudges of a whole reload would otherwise each wake it once it does.
    package func nudge() {
        guard state.withLock({ $0.running }) else { return }
        wake.signal()
    }

    /// Stops picking deliveries; sends in progress go on (see `waitStopped`).
    package func beginStop() {
        let wasRunning = state.withLock { $0.stop() }
        guard wasRunning else { return }
        wake.signal()
        for _ in 0..<sender.config.concurrency { work.signal() }
    }

    /// Waits until every send in progress has its answer (at most the webhook timeout) and its
    /// outcome is committed, or `deadline` passes, so that the outcomes reach storage before it
    /// closes. A send still running then stays pending and is sent again after the restart.
    /// Once stopped, the failures left out of the log and not said yet are written.
    package func waitStopped(until deadline: DispatchTime) -> Bool {
        guard
            finished.wait(timeout: deadline) == .success && unsettled.wait(timeout: deadline) == .success
                && predecessorStopped(until: deadline)
        else { return false }
        failureLines.flush()
        deadLines.flush()
        return true
    }

    /// Whether the worker this one replaced has stopped, waiting for it until `deadline`.
    private func predecessorStopped(until deadline: DispatchTime) -> Bool {
        guard let predecessor = predecessor.value else { return true }
        guard predecessor.waitStopped(until: deadline) else { return false }
        self.predecessor.withLock { $0 = nil }
        return true
    }

    /// How long a stop may wait for sends in progress: one webhook timeout and a little more.
    package var stopLimit: Duration? { .seconds(sender.config.timeoutSeconds + 1) }

    // MARK: - Threads

    private func dispatchLoop() {
        while state.withLock({ $0.running }) {
            dispatchDue()
            _ = wake.wait(timeout: .now() + pollInterval)
            while wake.wait(timeout: .now()) == .success {}
        }
    }

    /// Queues every due delivery not already in flight, up to twice the concurrency
    /// (`DeliveryDispatch` decides; this reads storage and wakes the senders).
    private func dispatchDue() {
        // Outcomes committed before this point are visible to the read below, so their events
        // may leave `inFlight`; ones that finish during the read stay in it until next time.
        guard let (inFlight, room) = state.withLock({ $0.beginRead() }) else { return }
        let nowMs = UnixTime.milliseconds(clock())
        let holdMs = Int64(sender.config.orderHoldSeconds) * 1000
        let due: (deliveries: [DueDelivery], sendBefore: ContinuousClock.Instant?)
        do {
            due = try dueDeliveries(nowMs: nowMs, room: room, holdMs: holdMs, inFlight: inFlight)
            picking.succeeded()
        } catch {
            picking.failed(error)
            return
        }
        let picked = state.withLock { $0.take(due.deliveries, sendBefore: due.sendBefore) }
        for _ in 0..<picked { work.signal() }
    }

    /// What is due: read, on a database this node alone writes (SQLite); claimed for this node
    /// (`Deliveries.claimDue`), where several nodes share it (PostgreSQL). Claimed ones must be
    /// sent before `sendBefore`, on this node's clock: the claim was made after the moment read
    /// here, so an attempt begun before it (at most `timeoutSeconds`) ends within the claim.
    private func dueDeliveries(nowMs: Int64, room: Int, holdMs: Int64, inFlight: Set<String>) throws
        -> (deliveries: [DueDelivery], sendBefore: ContinuousClock.Instant?)
    {
        let (appId, webhook, node, leaseMs) = (appId, webhook, node, leaseMs)
        guard store.isShared else {
            let due = try store.read { (rows) throws(StoreError) -> [DueDelivery] in
                try StoreError.decoding {
                    try Deliveries.due(
                        appId: appId, webhook: webhook, nowMs: nowMs, limit: room, holdMs: holdMs, inFlight: inFlight,
                        from: rows)
                }
            }
            return (due, nil)
        }
        let claimedAfter = ContinuousClock.now
        let claimed = Locked<[DueDelivery]>([])
        try store.write { transaction in
            // The lease on the database's clock, which every node judges it by.
            let now = try transaction.claimClockMs(else: nowMs)
            let due = try Deliveries.claimDue(
                appId: appId, webhook: webhook, node: node, nowMs: now, leaseMs: leaseMs, limit: room, holdMs: holdMs,
                inFlight: inFlight, in: transaction)
            claimed.withLock { $0 = due }
        }
        return (
            claimed.value,
            Self.sendBefore(claimedAfter: claimedAfter, leaseMs: leaseMs, timeoutSeconds: sender.config.timeoutSeconds)
        )
    }

    /// The last moment a delivery claimed after `claimedAfter` for `leaseMs` may be sent: an
    /// attempt begun then (at most `timeoutSeconds`, and a second for its commit) ends within the claim.
    static func sendBefore(claimedAfter: ContinuousClock.Instant, leaseMs: Int64, timeoutSeconds: Int)
        -> ContinuousClock.Instant
    {
        claimedAfter + .milliseconds(leaseMs) - .seconds(timeoutSeconds + 1)
    }

    private func sendLoop() {
        while true {
            work.wait()
            switch state.withLock({ $0.next() }) {
            case .stop: return
            case .wait: continue
            case .send(let delivery): deliver(delivery)
            case .lapsed(let delivery): lapsed(delivery)
            }
        }
    }

    /// A claimed delivery that waited too long to be sent (the node was frozen, or sends ahead
    /// took long): not sent, and looked for again now.
    private func lapsed(_ delivery: DueDelivery) {
        metrics.deliveries.increment(label: "lapsed")
        log?.warning(
            "webhook.claim_lapsed", "a claimed delivery was not sent in time; it is claimed again before it is sent",
            [("app", .text(appId)), ("webhook", .text(webhook)), ("event_id", .text(delivery.eventId))])
        wake.signal()
    }

    /// Sends one event and records the outcome without waiting for the commit: the sender takes
    /// the next event at once, and the delivery leaves `inFlight` (letting the customer's next
    /// event go) only once its outcome is committed.
    private func deliver(_ delivery: DueDelivery) {
        unsettled.enter()
        let outcome: DeliveryOutcome
        do {
            outcome = sender.send(try WebhookBody.body(fromStored: delivery.eventJSON), eventId: delivery.eventId, at: clock())
        } catch {
            outcome = .failed(status: nil, reason: "stored event cannot be sent: \(error)")
        }
        record(outcome, of: delivery, atMs: UnixTime.milliseconds(clock()), attempt: 1)
    }

    /// Commits what became of an attempt. If the commit fails (storage busy or full), the known
    /// outcome is committed again after a pause, rather than the event sent again: a 2xx
    /// answer must not lead to a second delivery. The delivery stays in flight meanwhile, so
    /// nothing else of that customer goes out; a stopped worker keeps trying until the store
    /// closes, and after the restart the delivery is sent again (at least once).
    private func record(_ outcome: DeliveryOutcome, of delivery: DueDelivery, atMs nowMs: Int64, attempt: Int) {
        let step = DeliveryStep.after(
            outcome, attemptsBefore: delivery.attempts, retryDelaysSeconds: sender.config.retryDelaysSeconds, at: nowMs)
        store.write(
            { transaction in try Deliveries.record(step, of: delivery, in: transaction) },
            completion: { [self] result in
                guard case .success = result else {
                    // Once per attempt: committing again is not another attempt.
                    if attempt == 1 {
                        metrics.deliveries.increment(label: "unrecorded")
                        log?.warning(
                            "webhook.unrecorded", "a delivery's outcome could not be committed; committing it again",
                            [("app", .text(appId)), ("webhook", .text(webhook)), ("event_id", .text(delivery.eventId))])
                    }
                    guard !store.isClosed else {
                        unsettled.leave()
                        return
                    }
                    let pause = DeliveryDispatch.pauseBeforeRecordingAgain(afterAttempt: attempt)
                    DispatchQueue.global().asyncAfter(deadline: .now() + pause) { [self] in
                        record(outcome, of: delivery, atMs: nowMs, attempt: attempt + 1)
                    }
                    return
                }
                state.withLock { $0.recorded(delivery.eventId) }
                unsettled.leave()
                wake.signal()
                switch step {
                case .delivered:
                    metrics.deliveries.increment(label: "delivered")
                    metrics.deliveryLatency.observe(UnixTime.elapsedSeconds(from: delivery.createdAtMs, to: nowMs))
                    if let log, log.enabled(.debug) {
                        log.debug(
                            "webhook.delivered", "",
                            [
                                ("app", .text(appId)), ("webhook", .text(webhook)), ("event_id", .text(delivery.eventId)),
                                ("attempt", .integer(Int64(delivery.attempts + 1))),
                            ])
                    }
                case .retry(_, _, let status, let reason):
                    metrics.deliveries.increment(label: "retry")
                    logFailure(of: delivery, status: status, reason: reason, dead: false)
                case .dead(_, _, let status, let reason):
                    metrics.deliveries.increment(label: "dead")
                    logFailure(of: delivery, status: status, reason: reason, dead: true)
                }
            })
    }

    /// A line per failed attempt (warning, retried later) and per dead letter (error: no more
    /// attempts; `revenuedot events resend` sends it again). The webhook is named as its
    /// deliveries are stored (`webhook=""` for the app's unnamed one, as `events list` shows it).
    ///
    /// At most one line a second of each kind per webhook: a receiver down with a backlog fails
    /// every attempt, and the lines would bury the log. The next line written says how many were
    /// left out (`left_out`), or, when none comes in the second after, a line of its own with
    /// no event does (`LineAllowance`); `/metrics` counts every attempt.
    private func logFailure(of delivery: DueDelivery, status: Int?, reason: String, dead: Bool) {
        guard let log else { return }
        guard let leftOut = (dead ? deadLines : failureLines).admit() else { return }
        var fields: [(String, LogValue)] = [
            ("app", .text(appId)), ("webhook", .text(webhook)),
            ("event_id", .text(delivery.eventId)), ("attempt", .integer(Int64(delivery.attempts + 1))),
        ]
        if let status { fields.append(("status", .integer(Int64(status)))) }
        fields.append(("reason", .text(reason)))
        if leftOut > 0 { fields.append(("left_out", .integer(Int64(leftOut)))) }
        if dead {
            log.error("webhook.dead_letter", "no attempts left: revenuedot events resend sends it again", fields)
        } else {
            log.warning("webhook.failed", "the event is sent again later", fields)
        }
    }
}
