import AppStore
import AppStoreServerAPI
import Foundation
import Storage
import Synchronization
import Threads

/// `serve`'s backfill: at start and every `appleApi.backfillIntervalMinutes`, for each app with
/// an `inAppPurchaseKey` and each environment it accepts that Apple keeps history of, recovers
/// what was sent since the last completed run read through (the stored mark, less the margin),
/// through this server's ingest. A run that fails is logged and tried again at the next
/// interval, from the same mark.
package final class AutomaticBackfill: StoppableService {
    private let config: RevenueDotConfig
    private let ingest: Ingest
    private let store: Store
    private let metrics: Metrics
    private let log: Log
    private let thread = PeriodicThread()
    private let clients: AppleAPIClientPool

    package init(
        config: RevenueDotConfig, ingest: Ingest, store: Store, clients: AppleAPIClientPool, metrics: Metrics,
        log: Log
    ) {
        self.config = config
        self.ingest = ingest
        self.store = store
        self.metrics = metrics
        self.log = log
        self.clients = clients
    }

    /// The apps it backfills: those with a key, and at least one environment with history.
    package static func apps(of config: RevenueDotConfig) -> [AppConfig] {
        guard config.appleAPI.backfillIntervalMinutes > 0 else { return [] }
        return config.apps.filter { $0.inAppPurchaseKey != nil && !Backfill.environments(of: $0).isEmpty }
    }

    /// Whether `start` runs anything: some app qualifies.
    package var isActive: Bool { !Self.apps(of: config).isEmpty }

    /// Seconds between tries of a first pass that did not complete, while timers wait for it.
    package static let firstPassRetrySeconds: Double = 10

    /// Starts the thread, which runs at once and then every interval; nothing when no app
    /// qualifies. A first pass that does not complete (Apple failing, say) is tried again every
    /// `firstPassRetrySeconds` for `retryFirstFor` seconds; `firstPassDone` is called once one
    /// completes, so timers waiting for it are not let go by a failed one.
    package func start(retryFirstFor: Double = 0, firstPassDone: @escaping @Sendable () -> Void = {}) {
        guard isActive else { return }
        let giveUp = ContinuousClock.now + .seconds(retryFirstFor)
        thread.start(
            "backfill", every: Double(config.appleAPI.backfillIntervalMinutes) * 60, immediately: true,
            first: { [self] in
                var completed = runOnce()
                while !completed, ContinuousClock.now + .seconds(Self.firstPassRetrySeconds) < giveUp,
                    thread.pause(Self.firstPassRetrySeconds)
                {
                    completed = runOnce()
                }
                if completed { firstPassDone() }
            }
        ) { [self] in runOnce() }
    }

    /// Asks it to stop after the page in progress.
    package func beginStop() { thread.beginStop() }
    package func waitStopped(until deadline: DispatchTime) -> Bool { thread.waitStopped(until: deadline) }
    /// A call to Apple in progress may outlast it: storage then refuses what it brings (it was
    /// not stored, so nothing is lost), and the rest is taken up at the next start.
    package var stopLimit: Duration? { .seconds(5) }

    /// One pass over every app and environment; whether every run completed.
    @discardableResult
    package func runOnce() -> Bool {
        var completed = true
        for app in Self.apps(of: config) {
            for environment in Backfill.environments(of: app) {
                guard !thread.isStopping else { return false }
                completed = run(app, environment) && completed
            }
        }
        return completed
    }

    private func run(_ app: AppConfig, _ environment: AppStoreEnvironment) -> Bool {
        let label = "backfill \(app.id) \(environment.rawValue)"
        // What /metrics has been told of this run; a stop adds what settled since.
        var reported = Backfill.Counts()
        do {
            let counts = try Backfill.pass(
                environment, of: .inProcess(store: store, ingest: ingest, appId: app.id, name: "this server's database"),
                client: try clients.client(for: app, environment: environment), asked: Backfill.Asked(),
                marginMs: Int64(config.appleAPI.backfillMarginMinutes) * 60_000,
                isCancelled: { [thread] in thread.isStopping },
                progress: { counts in
                    record(counts, since: reported)
                    reported = counts
                })
            metrics.backfillRuns.increment(label: "completed")
            if counts.new > 0 || counts.refused > 0 {
                log.info("backfill.done", counts.summary, [("run", .text(label))])
            }
            return true
        } catch let stopped as Backfill.Stopped {
            record(stopped.counts, since: reported)
            metrics.backfillRuns.increment(label: "stopped")
            log.warning(
                "backfill.stopped", "tried again later",
                [("run", .text(label)), ("reason", .text("\(stopped)")), ("so_far", .text(stopped.counts.summary))])
        } catch {
            metrics.backfillRuns.increment(label: "failed")
            log.warning("backfill.failed", "tried again later", [("run", .text(label)), ("error", .text("\(error)"))])
        }
        return false
    }

    private func record(_ counts: Backfill.Counts, since previous: Backfill.Counts) {
        metrics.backfillPages.increment(by: counts.pages - previous.pages)
        metrics.backfillNotifications.increment(label: "new", by: counts.new - previous.new)
        metrics.backfillNotifications.increment(label: "already_stored", by: counts.alreadyStored - previous.alreadyStored)
        metrics.backfillNotifications.increment(label: "refused", by: counts.refused - previous.refused)
    }
}
