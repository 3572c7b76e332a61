import AppStore
import AppStoreServerAPI
import Foundation
import Storage
import Subscriptions
import Synchronization
import Threads

/// `serve`'s reconciliation: every `appleApi.reconcileIntervalMinutes`, each active or recently
/// lapsed subscription of the apps with a key is compared with Apple's status and brought in
/// line (`Reconcile`); drifts are counted by field in `/metrics`.
package final class ScheduledReconcile: StoppableService {
    private let config: RevenueDotConfig
    private let store: Store
    private let metrics: Metrics
    private let log: Log
    private let clients: AppleAPIClientPool
    private let thread = PeriodicThread()

    package init(
        config: RevenueDotConfig, store: Store, clients: AppleAPIClientPool, metrics: Metrics,
        log: Log
    ) {
        self.config = config
        self.store = store
        self.metrics = metrics
        self.log = log
        self.clients = clients
    }

    package var apps: [AppConfig] {
        guard config.appleAPI.reconcileIntervalMinutes > 0 else { return [] }
        return config.apps.filter { $0.inAppPurchaseKey != nil }
    }

    /// Runs every interval (the first an interval after start: backfill comes first).
    package func start() {
        guard !apps.isEmpty else { return }
        thread.start("reconcile", every: Double(config.appleAPI.reconcileIntervalMinutes) * 60, immediately: false) {
            [self] in runOnce()
        }
    }

    package func beginStop() { thread.beginStop() }
    package func waitStopped(until deadline: DispatchTime) -> Bool { thread.waitStopped(until: deadline) }
    /// A call to Apple in progress may outlast it: storage then refuses what it brings (it was
    /// not stored, so nothing is lost), and the rest is taken up at the next start.
    package var stopLimit: Duration? { .seconds(5) }

    /// One pass over every app's subscriptions.
    package func runOnce() {
        for app in apps {
            let nowMs = UnixTime.nowMs
            let states: [SubscriptionState]
            do { states = try Reconcile.candidates(app: app, store: store, nowMs: nowMs) } catch {
                log.warning(
                    "reconcile.failed", "tried again at the next interval",
                    [("app", .text(app.id)), ("error", .text("\(error)"))])
                continue
            }
            var applied = 0
            var asked = 0
            var failed: (count: Int, first: String)?
            var stopped = false
            for state in states {
                guard !thread.isStopping else { return }
                asked += 1
                let environment = Reconcile.environment(of: state)
                do {
                    let outcome = try Reconcile.reconcile(
                        state, app: app, client: try clients.client(for: app, environment: environment), store: store,
                        nowMs: nowMs)
                    for drift in outcome.drifts { metrics.reconcileDrifts.increment(label: drift.field) }
                    let label = outcome.drifts.isEmpty ? "in_line" : outcome.applied ? "applied" : "not_applied"
                    metrics.reconciled.increment(label: label)
                    if outcome.applied { applied += 1 }
                } catch {
                    metrics.reconciled.increment(label: "failed")
                    failed = ((failed?.count ?? 0) + 1, failed?.first ?? "\(error)")
                    // Apple unreachable, limiting the rate or refusing the key: the rest would fail alike.
                    if (error as? AppStoreServerAPIError)?.failsEveryCall == true {
                        stopped = true
                        break
                    }
                }
            }
            if let failed {
                log.warning(
                    "reconcile.failed",
                    stopped ? "pass stopped; tried again at the next interval" : "tried again at the next interval",
                    [
                        ("app", .text(app.id)), ("failed", .integer(Int64(failed.count))),
                        ("checked", .integer(Int64(asked))), ("of", .integer(Int64(states.count))),
                        ("error", .text(failed.first)),
                    ])
            }
            if applied > 0 {
                log.info(
                    "reconcile.applied", "subscriptions brought in line with Apple",
                    [("app", .text(app.id)), ("applied", .integer(Int64(applied))), ("checked", .integer(Int64(states.count)))])
            }
        }
    }
}
