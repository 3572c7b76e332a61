import AppStore
import Foundation
import HTTP
import Storage
import Threads

/// The running service: storage, ingest, the HTTP server, the scheduler and the webhook workers,
/// started and stopped together.
public final class RevenueDotService: Sendable {
    public let config: RevenueDotConfig
    /// Which node this is among several on one database (`NodeIdentity`).
    public let node: String
    private let store: Store
    private let server: HTTPServer
    package let metrics: Metrics
    private let scheduler: Scheduler
    private let workers: [DeliveryWorker]
    private let held: HeldNotifications
    private let backfill: AutomaticBackfill
    private let consumption: ConsumptionAnswering
    private let reconcile: ScheduledReconcile
    private let contacts: CustomerContacts
    private let heldOutcome = Locked<HeldNotifications.Outcome?>(nil)
    private let failedOutcome = Locked<HeldNotifications.Outcome?>(nil)
    /// Left when the start's pass over held notifications is over (entered by `start()`).
    private let heldPass = DispatchGroup()

    /// Takes the lines an operator should see while the server runs (`init`'s `log`).
    private let log: @Sendable (String) -> Void

    /// The default log: "revenuedot: LINE" on standard error.
    public static let logToStandardError: @Sendable (String) -> Void = { StandardStreams.error("revenuedot: \($0)\n") }

    /// Opens storage and prepares the server; nothing listens until `start()`.
    ///
    /// - Parameters:
    ///   - clock: the time the scheduler and the webhook workers go by (tests move it forward).
    ///   - deliveryPollInterval: how often workers look for due deliveries besides the nudge each
    ///     commit gives them (retries come due without one).
    ///   - log: takes the lines an operator should see while the server runs (standard error).
    public init(
        config: RevenueDotConfig, clock: @escaping @Sendable () -> Date = Date.init, deliveryPollInterval: Double = 0.2,
        log: @escaping @Sendable (String) -> Void = RevenueDotService.logToStandardError
    ) throws {
        self.config = config
        self.node = NodeIdentity.next(name: config.nodeId)
        self.log = log
        let metrics = Metrics()
        self.metrics = metrics
        // Commits may carry new events: the workers are nudged (they exist once the store does).
        let nudge = Locked<[DeliveryWorker]>([])
        // Facts decoded for refolds, shared by every input applied to this store.
        let cache = LedgerCache()
        let handOff = LedgerHandOff(config: config, cache: cache)
        // A failed write of the reject log is tried again every second: a line a minute at most.
        let rejectLogWarned = Locked<ContinuousClock.Instant?>(nil)
        let onCommit: @Sendable (Int) -> Void = { size in
            metrics.commitBatchSize.observe(Double(size))
            for worker in nudge.withLock({ $0 }) { worker.nudge() }
        }
        // Nobody waits for these writes: the line and the count explain a failing health check.
        let onRejectsFailed: @Sendable (StoreError) -> Void = { error in
            metrics.rejectLogFailures.increment()
            let due = rejectLogWarned.withLock { last in
                if let last, last.duration(to: .now) < .seconds(60) { return false }
                last = .now
                return true
            }
            if due { log("the reject log could not be written (its entries are kept and tried again): \(error)") }
        }
        let store: Store
        do {
            switch config.database {
            case .sqlite(let path):
                store = try Store(
                    path: path, handOff: handOff, onCommit: onCommit, onRejectsFailed: onRejectsFailed,
                    onFlush: { metrics.storageFlushed($0) }, reservesWAL: true, exclusive: true)
            case .postgres(let url):
                store = try Store(postgres: url, handOff: handOff, onCommit: onCommit, onRejectsFailed: onRejectsFailed)
            }
        } catch {
            // The key to look at first; the error says what the database said (or who holds it).
            let location =
                switch config.database {
                case .sqlite(let path): path
                case .postgres(let url): url.description
                }
            throw ConfigError(file: config.file, key: "database", problem: "cannot open \(location): \(error)")
        }
        self.store = store
        let node = node
        let workers = config.apps.flatMap { app in
            app.webhooks.map {
                DeliveryWorker(
                    app: app, webhook: $0, store: store, metrics: metrics, clock: clock, pollInterval: deliveryPollInterval,
                    node: node)
            }
        }
        self.workers = workers
        nudge.withLock { $0 = workers }
        scheduler = Scheduler(
            config: config, store: store, clock: clock, afterFiring: { fired in metrics.timersFired.increment(by: fired) },
            onFailure: { message in
                metrics.timersFailed.increment()
                log(message)
            }, cache: cache)
        // One set of verifiers (and chain caches) serves ingest and the subscriber API.
        let verifiers = try AppVerifiers.forApps(of: config)
        let ingest = Ingest(verifiers: verifiers, store: store, metrics: metrics, log: log)
        held = HeldNotifications(verifiers: verifiers, store: store, handOff: handOff, clock: clock)
        // One client per app and environment for the server's own calls to Apple, so they share
        // its connections and its request rate (appleApi.requestsPerSecond).
        let apple = AppleAPIClientPool(config: config.appleAPI)
        backfill = AutomaticBackfill(config: config, ingest: ingest, store: store, clients: apple, metrics: metrics, log: log)
        consumption = ConsumptionAnswering(
            config: config, store: store, clients: apple, metrics: metrics, clock: clock, log: log)
        reconcile = ScheduledReconcile(config: config, store: store, clients: apple, metrics: metrics, log: log)
        var subscribers = SubscribersAPI(
            keys: APIKeys(apps: config.apps), verifiers: verifiers, store: store, cache: cache, clock: Date.init)
        subscribers.appleLookups = AppleTransactionLookups(config: config.appleAPI, log: log)
        contacts = CustomerContacts(store: store)
        subscribers.contacts = contacts
        let http = HTTPServerConfiguration(
            host: config.listen.host, port: config.listen.port, threads: config.http.threads,
            maxBodyBytes: config.http.maxBodyBytes, maxBufferedBodyBytes: config.http.maxBufferedBodyBytes,
            connectionTimeoutSeconds: config.http.timeoutSeconds, headerTimeoutSeconds: config.http.headerTimeoutSeconds,
            requestTimeoutSeconds: config.http.requestTimeoutSeconds, connectionsPerIP: config.http.connectionsPerIP)
        server = HTTPServer(
            configuration: http,
            router: Routes.router(
                ingest: ingest, subscribers: subscribers, events: EventsAPI(keys: APIKeys(apps: config.apps), store: store),
                commerce: CommerceAPI(keys: APIKeys(apps: config.apps), store: store, clock: Date.init),
                apple: AppleWorkAPI(keys: APIKeys(apps: config.apps), store: store, clients: apple, clock: Date.init),
                store: store, metrics: metrics, exchangeRates: config.apps.first?.exchangeRates),
            observer: metrics)
    }

    /// Starts listening, then takes up the held notifications the configuration now accepts
    /// (`HeldNotifications`) on a thread of its own, so the server answers meanwhile; returns the
    /// bound port. A start that cannot listen has changed nothing.
    ///
    /// - Parameters:
    ///   - heldDone: called once every held notification was examined, with how many were applied
    ///     and how many stay held.
    ///   - failedDone: the same for the notifications whose hand-off had failed, examined next.
    @discardableResult
    public func start(
        heldDone: (@Sendable (_ applied: Int, _ stillHeld: Int) -> Void)? = nil,
        failedDone: (@Sendable (_ applied: Int, _ stillFailed: Int) -> Void)? = nil
    ) throws -> UInt16 {
        let port: UInt16
        do {
            port = try server.start()
        } catch let error as HTTPServerError where error.code == .startFailed || error.code == .invalidAddress {
            // An address that parses but cannot be bound: in use, or not this machine's.
            throw ConfigError(file: config.file, key: "listen", problem: error.message)
        }
        // Timers wait for the first backfill (at most `firstBackfillWait`): a renewal Apple sent
        // while the server was down must not be taken for an expiry first.
        if backfill.isActive {
            backfill.start(firstPassDone: { [scheduler] in scheduler.start() })
            DispatchQueue.global().asyncAfter(deadline: .now() + Self.firstBackfillWait) { [scheduler] in scheduler.start() }
        } else {
            scheduler.start()
        }
        for worker in workers { worker.start() }
        consumption.start()
        reconcile.start()
        contacts.start()
        heldPass.enter()
        NamedThread.start("held-reapply") { [held, heldOutcome, failedOutcome, heldPass, log] in
            /// One pass over the notifications in `state`: its outcome kept, reported, and its failures told.
            func pass(
                _ state: NotificationState, into kept: Locked<HeldNotifications.Outcome?>,
                done: (@Sendable (Int, Int) -> Void)?
            ) {
                let outcome: HeldNotifications.Outcome
                do { outcome = try held.reapply(state) } catch {
                    outcome = .init(failures: ["the \(state.rawValue) notifications: \(error)"])
                }
                kept.withLock { $0 = outcome }
                done?(outcome.applied, outcome.notApplied)
                for failure in outcome.failures {
                    log("a \(state.rawValue) notification could not be applied: \(failure)")
                }
            }
            pass(.held, into: heldOutcome, done: heldDone)
            // Then those whose hand-off failed when they arrived: tried again at every start.
            pass(.failed, into: failedOutcome, done: failedDone)
            heldPass.leave()
        }
        return port
    }

    /// Waits until the start's pass over held notifications is over (tests).
    package func waitForHeldNotifications() { heldPass.wait() }

    /// Reconciles now (tests; `serve` does this every `appleApi.reconcileIntervalMinutes`).
    package func reconcileNow() { reconcile.runOnce() }

    /// Answers the consumption requests due now (tests; `serve` does this every 15 s).
    package func answerConsumptionRequests() { consumption.runOnce() }

    /// Fires due timers now (tests; the scheduler does this every `scheduler.intervalMs`).
    @discardableResult
    package func fireDueTimers() throws -> Int { try scheduler.tick() }

    /// The port the server listens on.
    public var port: UInt16 { server.port }

    /// What went wrong at start without stopping it, for `serve` to print.
    public var warnings: [String] { store.warnings }

    /// What the start did with held notifications: applied now that the configuration accepts
    /// them, or still held. Nil until that pass is over.
    public var heldNotifications: (applied: Int, stillHeld: Int)? {
        heldOutcome.value.map { ($0.applied, $0.notApplied) }
    }

    /// What the start did with notifications whose hand-off had failed: applied now, or failed
    /// still. Nil until that pass is over.
    public var failedNotifications: (applied: Int, stillFailed: Int)? {
        failedOutcome.value.map { ($0.applied, $0.notApplied) }
    }

    /// How long timers wait at start for the first automatic backfill.
    package static let firstBackfillWait: Double = 120

    /// How long `shutdown` waits for storage to finish after the HTTP drain.
    public static let storageShutdownTimeout: Duration = .seconds(60)

    /// Graceful stop: no new connections, in-flight requests finish, storage is flushed.
    /// Webhook deliveries in flight get a moment to finish; one that does not is sent again
    /// after the restart. False when storage did not finish within `storageTimeout` (a disk that
    /// does not answer): the caller should exit anyway, since what was answered stored is on disk.
    ///
    /// Once the HTTP server has stopped, everything else shares `storageTimeout`: the pass over
    /// held notifications and a scheduler tick wait for their writes, and with a disk that does
    /// not answer they would wait for good, before the storage's own close was ever timed.
    @discardableResult
    public func shutdown(storageTimeout: Duration = storageShutdownTimeout) -> Bool {
        server.shutdown()
        let deadline = ContinuousClock.now + storageTimeout
        let remaining = { max(.zero, ContinuousClock.now.duration(to: deadline)) }
        // What it applied so far is committed; the rest is taken up at the next start.
        held.stop()
        let heldStopped = heldPass.wait(timeout: .after(remaining())) == .success
        let schedulerStopped = stopTogether([scheduler], before: deadline)
        // A backfill stops after the page in hand, the consumption answers after the one in hand;
        // the rest is taken up at the next start. A call to Apple in progress may outlast the
        // wait, which says nothing about storage, so it does not make the stop a failure. The
        // webhook workers stop together, so apps do not add up their grace periods.
        stopTogether([backfill, consumption, reconcile, contacts] + workers, before: deadline)
        // A second at least: a pass or tick that ended just in time leaves storage its close.
        let closed = store.close(waitingAtMost: max(remaining(), .seconds(1)))
        if let profile = WriteProfile.report() { StandardStreams.error("revenuedot: \(profile)\n") }
        return closed && heldStopped && schedulerStopped
    }
}
