import Foundation
import Storage
import Subscriptions
import Threads

/// Feeds due timers to the reducer: the clock input that records EXPIRATION when access, grace
/// period included, has ended, whether or not Apple ever says so.
///
/// Every `intervalMs` it fires each timer whose moment has passed, in its own write (a timer
/// due while the server was down fires on the first tick after the start). Firing is
/// idempotent: the reducer derives event ids from the lapse, so a timer fired twice makes no
/// second event.
package final class Scheduler: StoppableService {
    private let apps: [String: AppConfig]
    private let store: Store
    private let interval: Double
    private let clock: @Sendable () -> Date
    private let afterFiring: @Sendable (Int) -> Void
    private let onFailure: @Sendable (String) -> Void
    /// Ticks that could not read the due timers.
    private let ticks: FailureStreak?
    /// What the store keeps decoded, shared with ingest (`LedgerCache`).
    private let cache: LedgerCache?
    private let running = Locked(false)
    /// Set by `stop`: a tick in progress ends after its batch instead of firing the whole backlog.
    private let stopping = Locked(false)
    private let stopped = MonotonicSemaphore()
    /// Whether its thread was started.
    private let started = Locked(false)
    private let wake = MonotonicSemaphore()
    /// Signalled once its thread's first tick is over.
    private let firstTick = MonotonicSemaphore()

    /// - Parameters:
    ///   - afterFiring: called with the number of timers fired by a tick (when any fired).
    ///   - onFailure: called with a description of each timer that failed to fire.
    ///   - ticks: told of each tick of its thread that failed (could not read the due timers).
    ///   - cache: what the store keeps decoded, shared with the other inputs applied to it.
    package init(
        config: RevenueDotConfig, store: Store, clock: @escaping @Sendable () -> Date = Date.init,
        afterFiring: @escaping @Sendable (Int) -> Void = { _ in }, onFailure: @escaping @Sendable (String) -> Void = { _ in },
        ticks: FailureStreak? = nil, cache: LedgerCache? = nil
    ) {
        apps = Dictionary(uniqueKeysWithValues: config.apps.map { ($0.id, $0) })
        self.store = store
        interval = Double(config.scheduler.intervalMs) / 1000
        self.clock = clock
        self.afterFiring = afterFiring
        self.onFailure = onFailure
        self.ticks = ticks
        self.cache = cache
    }

    /// Starts ticking; once only, and never after `stop` (a start deferred behind the first
    /// backfill may come after a shutdown began).
    package func start() {
        let starts = running.withLock { running -> Bool in
            guard !running, !stopping.value else { return false }
            running = true
            return true
        }
        guard starts else { return }
        started.withLock { $0 = true }
        NamedThread.start("scheduler") { [self] in
            var ticked = false
            while running.value {
                do {
                    try tick()
                    ticks?.succeeded()
                } catch {
                    ticks?.failed(error)
                }
                if !ticked {
                    ticked = true
                    firstTick.signal()
                }
                _ = wake.wait(timeout: .now() + interval)
            }
            stopped.signal()
        }
    }

    /// Asks the scheduler to stop after the batch of timers in progress; returns at once.
    package func beginStop() {
        stopping.withLock { $0 = true }
        let wasRunning = running.withLock { running in
            defer { running = false }
            return running
        }
        if wasRunning { wake.signal() }
    }

    /// Waits for the batch in progress until `deadline`; false when it was still waiting for
    /// storage then (a disk that does not answer).
    package func waitStopped(until deadline: DispatchTime) -> Bool {
        guard started.value else { return true }
        guard stopped.wait(timeout: deadline) == .success else { return false }
        // Given back, so that a later wait sees it stopped too.
        stopped.signal()
        return true
    }

    /// Waits until `deadline` for the first tick of its thread, the one that fires what fell due
    /// while the server was down; false when it has not run by then.
    package func waitForFirstTick(until deadline: DispatchTime) -> Bool {
        guard firstTick.wait(timeout: deadline) == .success else { return false }
        // Given back, so that a later wait sees it too.
        firstTick.signal()
        return true
    }

    /// It waits for its batch as long as storage is given at shutdown.
    package var stopLimit: Duration? { nil }

    /// Stops after the batch of timers in progress, waiting for it until `deadline`
    /// (`beginStop`, then `waitStopped`).
    @discardableResult
    package func stop(waitingUntil deadline: DispatchTime = .distantFuture) -> Bool {
        beginStop()
        return waitStopped(until: deadline)
    }

    /// How long a timer that failed to fire waits before the next attempt.
    package static let retryAfterFailureMs: Int64 = 60_000

    /// Fires every timer due now; returns how many this tick fired (not those another node or
    /// tick fired first, nor those of an app no longer configured, which are dropped).
    ///
    /// Each timer is its own write (group-committed together, each in its own savepoint), so one
    /// that cannot fire (a state row that no longer decodes, say) fails alone: it is reported
    /// through `onFailure`, pushed back by `retryAfterFailureMs`, and the others still fire.
    @discardableResult
    package func tick() throws -> Int {
        let now = clock()
        let nowMs = UnixTime.milliseconds(now)
        var fired = 0
        var seen: Set<PendingTimers.Due> = []
        while true {
            let due = try store.read { (rows) throws(StoreError) -> [PendingTimers.Due] in
                try PendingTimers.due(atMs: nowMs, limit: 256, from: rows)
            }
            // A timer already handled in this tick (the reducer set it again, still due) waits for the next one.
            let fresh = due.filter { seen.insert($0).inserted }
            if fresh.isEmpty { break }
            let outcomes = Locked<[Bool]>([])
            let group = DispatchGroup()
            for timer in fresh {
                group.enter()
                // Whether this write fired it: another node's, or a tick asked for, may have first.
                let firedHere = Locked(false)
                store.write(
                    { [apps, cache] transaction in
                        guard let app = apps[timer.appId] else {
                            // An app no longer configured: its timers would come back on every tick.
                            try PendingTimers.remove(timer, in: transaction)
                            return
                        }
                        let applied = try LedgerInputs.keepAndApply(
                            .dueTimer(timer), app: app.ledger, atMs: nowMs, cache: cache, in: transaction)
                        firedHere.withLock { $0 = applied != nil }
                    },
                    completion: { [self] result in
                        if case .failure(let error) = result { postpone(timer, nowMs: nowMs, error: error) }
                        outcomes.withLock { $0.append((try? result.get()) != nil && firedHere.value) }
                        group.leave()
                    })
            }
            group.wait()
            fired += outcomes.withLock { $0.filter { $0 }.count }
            // What is left fires at the next start: a stop does not wait for a whole backlog.
            if due.count < 256 || stopping.value { break }
        }
        if fired > 0 { afterFiring(fired) }
        return fired
    }

    /// Reports a timer that failed to fire and moves it out of the way for a while.
    private func postpone(_ timer: PendingTimers.Due, nowMs: Int64, error: StoreError) {
        onFailure("timer \(timer.id) of app \(timer.appId) failed to fire: \(error)")
        store.write(
            { transaction in
                try PendingTimers.postpone(timer, dueAtMs: nowMs, toMs: nowMs + Self.retryAfterFailureMs, in: transaction)
            }, completion: { _ in })
    }
}
