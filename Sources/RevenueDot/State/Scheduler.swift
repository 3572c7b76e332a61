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
    private let running = Flag()
    private let stopped = DispatchSemaphore(value: 0)
    private let wake = DispatchSemaphore(value: 0)

    /// - Parameter afterFiring: called with the number of timers fired by a tick (when any fired).
    init(
        config: RevenueDotConfig, store: SQLiteStore, clock: @escaping @Sendable () -> Date = Date.init,
        afterFiring: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        apps = Dictionary(uniqueKeysWithValues: config.apps.map { ($0.id, $0) })
        self.store = store
        interval = Double(config.scheduler.intervalMs) / 1000
        self.clock = clock
        self.afterFiring = afterFiring
    }

    func start() {
        running.set(true)
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
        running.set(false)
        wake.signal()
        stopped.wait()
    }

    /// Fires every timer due now; returns how many fired.
    @discardableResult
    func tick() throws -> Int {
        let now = clock()
        let nowMs = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
        var fired = 0
        while true {
            let due = try store.read { (rows) throws(StoreError) -> [[SQLValue]] in
                try rows.query(
                    "SELECT app_id, id, json FROM timers WHERE fire_at <= ? ORDER BY fire_at, app_id, id LIMIT 256",
                    [.integer(nowMs)])
            }
            if due.isEmpty { break }
            let apps = apps
            let count = Locked(0)
            try store.write { transaction in
                for row in due {
                    guard let appId = row[0].textValue, let id = row[1].textValue, let app = apps[appId] else { continue }
                    // Re-read inside the write: a notification may have moved or removed it meanwhile.
                    guard
                        let json = try transaction.query(
                            "SELECT json FROM timers WHERE app_id = ? AND id = ? AND fire_at <= ?",
                            [.text(appId), .text(id), .integer(nowMs)]
                        ).first?.first?.textValue
                    else { continue }
                    let timer = try LedgerRows.decode(ExpirationTimer.self, json)
                    try TimerFiring.fire(timer, app: app, atMs: nowMs, deliver: true, in: transaction)
                    try LedgerInputs.log(kind: "timer", ref: json, app: app, atMs: nowMs, in: transaction)
                    count.withLock { $0 += 1 }
                }
                // Rows of apps no longer configured would come back on every tick: drop them.
                for row in due where row[0].textValue.flatMap({ apps[$0] }) == nil {
                    try transaction.execute("DELETE FROM timers WHERE app_id = ? AND id = ?", [row[0], row[1]])
                }
            }
            let firedNow = count.withLock { $0 }
            fired += firedNow
            if due.count < 256 { break }
        }
        if fired > 0 { afterFiring(fired) }
        return fired
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

/// A thread-safe boolean.
final class Flag: Sendable {
    private let storage = Locked(false)
    var value: Bool { storage.withLock { $0 } }
    func set(_ value: Bool) { storage.withLock { $0 = value } }
}
