import Foundation
import Storage
import Subscriptions

/// Feeds due timers to the reducer: the clock input that records EXPIRATION when access, grace
/// period included, has ended, whether or not Apple ever says so.
///
/// Every `intervalMs` it fires each timer whose moment has passed, in its own write (a timer
/// due while the server was down fires on the first tick after the start). Firing is
/// idempotent: the reducer derives event ids from the lapse, so a timer fired twice makes no
/// second event.
final class Scheduler: Sendable {
    private let apps: [String: AppConfig]
    private let store: SQLiteStore
    private let interval: Double
    private let clock: @Sendable () -> Date
    private let afterFiring: @Sendable (Int) -> Void
    private let onFailure: @Sendable (String) -> Void
    private let running = Locked(false)
    private let stopped = DispatchSemaphore(value: 0)
    private let wake = DispatchSemaphore(value: 0)

    /// - Parameters:
    ///   - afterFiring: called with the number of timers fired by a tick (when any fired).
    ///   - onFailure: called with a description of each timer that failed to fire.
    init(
        config: RevenueDotConfig, store: SQLiteStore, clock: @escaping @Sendable () -> Date = Date.init,
        afterFiring: @escaping @Sendable (Int) -> Void = { _ in }, onFailure: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        apps = Dictionary(uniqueKeysWithValues: config.apps.map { ($0.id, $0) })
        self.store = store
        interval = Double(config.scheduler.intervalMs) / 1000
        self.clock = clock
        self.afterFiring = afterFiring
        self.onFailure = onFailure
    }

    func start() {
        running.withLock { $0 = true }
        let thread = Thread { [self] in
            while running.value {
                _ = try? tick()
                _ = wake.wait(timeout: .now() + interval)
            }
            stopped.signal()
        }
        thread.name = "scheduler"
        thread.start()
    }

    /// Stops after the tick in progress.
    func stop() {
        guard running.value else { return }
        running.withLock { $0 = false }
        wake.signal()
        stopped.wait()
    }

    /// How long a timer that failed to fire waits before the next attempt.
    static let retryAfterFailureMs: Int64 = 60_000

    /// Fires every timer due now; returns how many fired.
    ///
    /// Each timer is its own write (group-committed together, each in its own savepoint), so one
    /// that cannot fire (a state row that no longer decodes, say) fails alone: it is reported
    /// through `onFailure`, pushed back by `retryAfterFailureMs`, and the others still fire.
    @discardableResult
    func tick() throws -> Int {
        let now = clock()
        let nowMs = UnixTime.milliseconds(now)
        var fired = 0
        var seen: Set<String> = []
        while true {
            let due = try store.read { (rows) throws(StoreError) -> [[SQLValue]] in
                try rows.query(
                    "SELECT app_id, id FROM timers WHERE fire_at <= ? ORDER BY fire_at, app_id, id LIMIT 256",
                    [.integer(nowMs)])
            }
            // A timer already handled in this tick (the reducer set it again, still due) waits for the next one.
            let fresh = due.filter { seen.insert("\($0[0].textValue ?? "")/\($0[1].textValue ?? "")").inserted }
            if fresh.isEmpty { break }
            let outcomes = Locked<[Bool]>([])
            let group = DispatchGroup()
            for row in fresh {
                guard let appId = row[0].textValue, let id = row[1].textValue else { continue }
                group.enter()
                store.write(
                    { [apps] transaction in
                        guard let app = apps[appId] else {
                            // An app no longer configured: its timers would come back on every tick.
                            try transaction.execute("DELETE FROM timers WHERE app_id = ? AND id = ?", [.text(appId), .text(id)])
                            return
                        }
                        // Re-read inside the write: a notification may have moved or removed it meanwhile.
                        guard
                            let json = try transaction.query(
                                "SELECT json FROM timers WHERE app_id = ? AND id = ? AND fire_at <= ?",
                                [.text(appId), .text(id), .integer(nowMs)]
                            ).first?.first?.textValue
                        else { return }
                        let timer = try LedgerRows.decode(ExpirationTimer.self, json)
                        try TimerFiring.fire(timer, app: app, atMs: nowMs, deliver: true, in: transaction)
                        try LedgerInputs.log(kind: "timer", ref: json, app: app, atMs: nowMs, in: transaction)
                    },
                    completion: { [self] result in
                        if case .failure(let error) = result { postpone(appId: appId, id: id, nowMs: nowMs, error: error) }
                        outcomes.withLock { $0.append((try? result.get()) != nil) }
                        group.leave()
                    })
            }
            group.wait()
            fired += outcomes.withLock { $0.filter { $0 }.count }
            if due.count < 256 { break }
        }
        if fired > 0 { afterFiring(fired) }
        return fired
    }

    /// Reports a timer that failed to fire and moves it out of the way for a while.
    private func postpone(appId: String, id: String, nowMs: Int64, error: StoreError) {
        onFailure("timer \(id) of app \(appId) failed to fire: \(error)")
        store.write(
            { transaction in
                try transaction.execute(
                    "UPDATE timers SET fire_at = ? WHERE app_id = ? AND id = ? AND fire_at <= ?",
                    [.integer(nowMs + Self.retryAfterFailureMs), .text(appId), .text(id), .integer(nowMs)])
            }, completion: { _ in })
    }
}

/// Firing one timer, shared by the scheduler and replay: the timer row goes, the reducer runs
/// at `atMs`, and whatever it schedules next takes the row's place.
enum TimerFiring {
    static func fire(
        _ timer: ExpirationTimer, app: AppConfig, atMs: Int64, deliver: Bool, in transaction: WriteTransaction
    ) throws {
        try transaction.execute("DELETE FROM timers WHERE app_id = ? AND id = ?", [.text(app.id), .text(timer.id)])
        try LedgerInputs.apply(.timerFired(timer), app: app, atMs: atMs, deliver: deliver, in: transaction)
    }
}
