import Foundation
import HTTP
import Storage
import Threads

/// The part of the running service that follows the configuration's apps (ids, bundles, keys,
/// root certificates, webhooks, entitlements, exchange rates), Apple's API settings and the
/// scheduler: the request handlers and the background services. Built whole from one
/// configuration; a reload (`RevenueDotService.reload`) builds a new one, stops the old one's
/// background services and starts the new one's, while the HTTP server and storage stay.
final class ConfiguredServices: Sendable {
    let config: RevenueDotConfig
    let router: Router
    let scheduler: Scheduler
    let workers: [DeliveryWorker]
    let held: HeldNotifications
    /// Verifies and stores Apple's notification POSTs.
    let ingest: Ingest
    let backfill: AutomaticBackfill
    let consumption: ConsumptionAnswering
    let reconcile: ScheduledReconcile
    /// The clients of the background services' calls to Apple (the Apple work API has its own,
    /// for calls in flight across a reload).
    private let background: AppleAPIClientPool
    private let firstBackfill: FirstBackfill

    /// What every generation shares: storage and what lives as long as the process.
    struct Shared: Sendable {
        let store: Store
        let metrics: Metrics
        let log: Log
        let cache: LedgerCache
        let handOff: LedgerHandOff
        let contacts: CustomerContacts
        /// Shared by ingest and the health check, across reloads.
        let alarm: StorageAlarm
        /// The `notification.refused` lines of ingest and of the HTTP server, across reloads.
        let refusals: LimitedLines
        /// The notification reference at `/docs` (`RevenueDotService.init`'s `docs`).
        let docs: (@Sendable (String) -> HTTPResponse?)?
        let clock: @Sendable () -> Date
        let deliveryPollInterval: Double
        let node: String
        /// What the timers wait for at start, across reloads.
        let firstBackfill: FirstBackfill
        /// The scheduler's failed ticks, across reloads: a streak a reload interrupts is said once.
        let timerTicks: FailureStreak
        /// Threads for HTTP handlers' storage work, off the HTTP workers (`Routes.offWorker`).
        let storageWork: WorkerPool
        /// How many HTTP workers read customers themselves at once (`InlineReads`).
        let inlineReads: InlineReads
        /// Threads that verify notification POSTs, off the HTTP workers (`Ingest`).
        let verifiers: VerifierLanes
    }

    /// Builds everything `config` asks for; starts nothing. Throws when an app's root
    /// certificates cannot make a verifier.
    init(config configured: RevenueDotConfig, shared: Shared) throws {
        let (store, metrics, log) = (shared.store, shared.metrics, shared.log)
        // One file for every app (`ConfigLoader`).
        configured.apps.first?.exchangeRates?.reportUnreadable { problem in
            log.warning(
                "exchange_rates.unreadable", "exchangeRatesFile changed and does not read: the last good rates stay in use",
                [("problem", .text(problem))])
        }
        firstBackfill = shared.firstBackfill
        // Every generation counts into the one metric: a reload does not reset it.
        var config = configured
        for index in config.apps.indices { config.apps[index].unpricedEvents = metrics.eventsWithoutUSDPrice }
        self.config = config
        workers = config.apps.flatMap { app in
            app.webhooks.map {
                DeliveryWorker(
                    app: app, webhook: $0, store: store, metrics: metrics, clock: shared.clock,
                    pollInterval: shared.deliveryPollInterval, node: shared.node, log: log)
            }
        }
        scheduler = Scheduler(
            config: config, store: store, clock: shared.clock,
            afterFiring: { fired in
                metrics.timersFired.increment(by: fired)
                if fired > 0 { log.info("scheduler.fired", "timers fed to the reducer", [("timers", .integer(Int64(fired)))]) }
            },
            onFailure: { message in
                metrics.timersFailed.increment()
                log.error("scheduler.failed", message)
            }, ticks: shared.timerTicks, cache: shared.cache)
        // One set of verifiers (and chain caches) serves ingest and the subscriber API.
        let verifiers = try AppVerifiers.forApps(of: config)
        ingest = Ingest(
            verifiers: verifiers, store: store, metrics: metrics, log: log, alarm: shared.alarm, refusals: shared.refusals,
            lanes: shared.verifiers)
        held = HeldNotifications(verifiers: verifiers, store: store, handOff: shared.handOff, clock: shared.clock)
        // One client per app and environment for the server's own calls to Apple, so they share
        // its connections; one set of request rates per app, environment and endpoint for them
        // and the API's transaction lookups (Apple's limits, or appleApi.requestsPerSecond).
        let rates = AppleAPIRates()
        let apple = AppleAPIClientPool(config: config.appleAPI, rates: rates, onAttempt: metrics.appleAPIAttempted)
        background = AppleAPIClientPool(config: config.appleAPI, rates: rates, onAttempt: metrics.appleAPIAttempted)
        backfill = AutomaticBackfill(
            config: config, ingest: ingest, store: store, clients: background, metrics: metrics, log: log)
        consumption = ConsumptionAnswering(
            config: config, store: store, clients: background, metrics: metrics, clock: shared.clock, log: log)
        reconcile = ScheduledReconcile(config: config, store: store, clients: background, metrics: metrics, log: log)
        let keys = APIKeys(apps: config.apps)
        var subscribers = SubscribersAPI(keys: keys, verifiers: verifiers, store: store, cache: shared.cache, clock: Date.init)
        subscribers.appleLookups = AppleTransactionLookups(
            config: config.appleAPI, log: log, rates: rates, onAttempt: metrics.appleAPIAttempted)
        subscribers.contacts = shared.contacts
        subscribers.work = shared.storageWork
        subscribers.inlineReads = shared.inlineReads
        router = Routes.router(
            ingest: ingest, subscribers: subscribers, events: EventsAPI(keys: keys, store: store),
            commerce: CommerceAPI(keys: keys, store: store, clock: Date.init),
            apple: AppleWorkAPI(keys: keys, store: store, clients: apple, clock: Date.init),
            store: store, metrics: metrics, alarm: shared.alarm,
            webhooks: WebhookKey.configured(in: config),
            docs: shared.docs, work: shared.storageWork)
    }

    /// Starts the background services. Until a first backfill since the server started
    /// completes (tried again while it fails, for what is left of `FirstBackfill`'s wait), the
    /// timers wait: a renewal Apple sent while the server was down must not be taken for an
    /// expiry first. Each webhook worker picks nothing until the one `predecessor` gives (the
    /// last worker started for the same app and webhook, in any earlier generation) has stopped
    /// with its outcomes committed.
    func start(predecessor: (DeliveryWorker) -> DeliveryWorker? = { _ in nil }) {
        DispatchQueue.global().async { [ingest] in ingest.learnSigners() }
        if backfill.isActive, let wait = firstBackfill.remainingWait {
            backfill.start(
                retryFirstFor: wait,
                firstPassDone: { [scheduler, firstBackfill] in
                    firstBackfill.complete()
                    scheduler.start()
                })
            DispatchQueue.global().asyncAfter(deadline: .now() + wait) { [scheduler] in scheduler.start() }
        } else {
            backfill.start()
            scheduler.start()
        }
        for worker in workers {
            worker.start(after: predecessor(worker))
        }
        consumption.start()
        reconcile.start()
    }

    /// The background services in the order they stop: the scheduler after its batch in hand
    /// (its writes wait for storage, so a late stop counts), then the rest together. A backfill
    /// stops after the page in hand, the consumption answers after the one in hand; the rest is
    /// taken up at the next start. A call to Apple in progress may outlast the wait, which says
    /// nothing about storage, so it does not count. The webhook workers (they finish their sends
    /// in hand) stop together, so apps do not add up their grace periods.
    var stopPhases: [StopPhase] {
        [
            StopPhase([scheduler], counts: true, name: "the scheduler's timers in hand"),
            StopPhase(
                [backfill, consumption, reconcile] + workers, counts: false,
                name: "webhook sends and calls to Apple in flight"),
        ]
    }

    /// Ends the waits between attempts of the background services' calls to Apple, and makes
    /// no further attempt: a stop (or a reload) is not spent on retries against an Apple that
    /// does not answer. The Apple work API's calls, answers to requests, are left to the HTTP
    /// server's drain.
    func stopCallsToApple() { background.stop() }

    /// Stops the background services before `deadline` (`stopPhases`); the pass over held
    /// notifications stops after the one in hand. False when the scheduler did not stop in time.
    @discardableResult
    func stop(before deadline: ContinuousClock.Instant) -> Bool {
        held.stop()
        stopCallsToApple()
        return stopInOrder(stopPhases, before: deadline)
    }
}
