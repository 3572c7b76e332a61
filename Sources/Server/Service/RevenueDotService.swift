import AppStore
import Foundation
import HTTP
import Storage
import Threads

/// The running service: storage, ingest, the HTTP server, the scheduler and the webhook workers,
/// started and stopped together.
///
/// What follows the configuration's apps is one `ConfiguredServices` generation; `reload`
/// replaces it while the HTTP server and storage go on. The listen address, the database, the
/// `http` limits, the node id and `log` are fixed for the process's life.
package final class RevenueDotService: Sendable {
    /// The configuration it started with (`current` is the one in force).
    package let config: RevenueDotConfig
    /// Which node this is among several on one database (`NodeIdentity`).
    package let node: String
    let store: Store
    let server: HTTPServer
    package let metrics: Metrics
    package let log: Log
    let shared: ConfiguredServices.Shared
    /// The generation in force, whose apps the store's hand-off applies inputs with and whose
    /// webhook workers each commit nudges; `reload` swaps it. Nil only while `init` makes the
    /// first one (storage must exist before it).
    let services: Locked<ConfiguredServices?>
    /// Held while a generation is started, stopped or swapped (reload and shutdown exclude each other).
    let lifecycle = Locked(false)
    /// The last webhook worker started for each app and webhook, in any generation: the one a
    /// new worker for them waits for. Not only the generation before: a webhook removed by one
    /// reload and given back by the next must still wait for a send its old worker has in hand.
    let lastWorkers = Locked<[WebhookKey: DeliveryWorker]>([:])
    /// How long a reload waits for the old background services to finish what they hold (a
    /// test shortens it).
    let reloadStopTimeout = Locked<Duration>(.seconds(30))
    private let contacts: CustomerContacts
    /// The access log's lines (`log.access`).
    private let accessLines: AccessLines
    private let httpErrors: LimitedLines
    private let heldOutcome = Locked<HeldNotifications.Outcome?>(nil)
    private let failedOutcome = Locked<HeldNotifications.Outcome?>(nil)
    /// Left when a pass over held notifications is over (entered by `start()` and `reload`).
    let heldPass = DispatchGroup()

    /// Opens storage and prepares the server; nothing listens until `start()`.
    ///
    /// - Parameters:
    ///   - clock: the time the scheduler and the webhook workers go by (tests move it forward).
    ///   - deliveryPollInterval: how often workers look for due deliveries besides the nudge each
    ///     commit gives them (retries come due without one).
    ///   - log: takes each line the server logs (`config.log` says which and how), its line
    ///     break included; standard error by default.
    ///   - docs: answers `GET /docs` and `GET /docs/{page}` (nil: a page that does not exist);
    ///     nil for no `/docs` routes.
    package init(
        config: RevenueDotConfig, clock: @escaping @Sendable () -> Date = Date.init, deliveryPollInterval: Double = 0.2,
        log sink: @escaping @Sendable (String) -> Void = Log.standardError,
        docs: (@Sendable (String) -> HTTPResponse?)? = nil
    ) throws {
        self.config = config
        let node = NodeIdentity.next(name: config.nodeId)
        self.node = node
        let log = Log(config.log, sink: sink)
        self.log = log
        let metrics = Metrics(node: node)
        self.metrics = metrics
        // Facts decoded for refolds, shared by every input applied to this store.
        let cache = LedgerCache()
        let services = Locked<ConfiguredServices?>(nil)
        self.services = services
        let handOff = LedgerHandOff(app: { id in services.value?.config.app(id)?.ledger }, cache: cache)
        // A failed write of the reject log is tried again every second: a line a minute at most.
        let rejectLogWarned = Locked<ContinuousClock.Instant?>(nil)
        let onCommit: @Sendable (CommittedBatch) -> Void = { batch in
            metrics.commitBatchSize.observe(Double(batch.items))
            // New deliveries, or an outcome that lets a customer's next event go: the workers in
            // force for those apps are nudged. Not for a commit of claims alone, which would
            // wake the worker that made it into claiming again at once.
            guard batch.changedOutbox else { return }
            for worker in services.value?.workers ?? [] where batch.outboxApps.contains(worker.appId) { worker.nudge() }
        }
        // Nobody waits for these writes: the line and the count explain a failing health check.
        let onRejectsFailed: @Sendable (StoreError) -> Void = { error in
            metrics.rejectLogFailures.increment()
            let due = rejectLogWarned.withLock { last in
                if let last, last.duration(to: .now) < .seconds(60) { return false }
                last = .now
                return true
            }
            if due {
                log.error(
                    "storage.reject_log_failed", "the reject log could not be written (its entries are kept and tried again)",
                    [("error", .text("\(error)"))])
            }
        }
        // An address in use is refused before storage opens: a start that cannot listen must
        // not have created or migrated the database (an upgrade's old build could not open it).
        do throws(HTTPServerError) {
            try HTTPServer.probeListen(host: config.listen.host, port: config.listen.port)
        } catch {
            // A second serve of one configuration: its database's holder is the news, not the port.
            if case .sqlite(let path) = config.database, let holder = DatabaseLock.holderProblem(databasePath: path) {
                throw ConfigError(file: config.file, key: "database", problem: holder)
            }
            throw ConfigError(file: config.file, key: "listen", problem: error.message)
        }
        let store: Store
        do throws(StoreError) {
            switch config.database {
            case .sqlite(let path):
                store = try Store(
                    path: path, handOff: handOff, onCommit: onCommit, onRejectsFailed: onRejectsFailed,
                    onFlush: { metrics.storageFlushed($0) }, reservesWAL: true, exclusive: true)
            case .postgres(var url):
                url.applicationName = "revenuedot \(node)"
                store = try Store(postgres: url, handOff: handOff, onCommit: onCommit, onRejectsFailed: onRejectsFailed)
            }
        } catch {
            // The key to look at first; the error says what the database said (or who holds it).
            let location =
                switch config.database {
                case .sqlite(let path): path
                case .postgres(let url): url.description
                }
            throw ConfigError(file: config.file, key: "database", problem: error.about(location, "cannot open"))
        }
        self.store = store
        contacts = CustomerContacts(store: store, flushes: FailureStreak(task: "contacts", log: log, metrics: metrics))
        let refusals = LimitedLines.refusals(log: log, clock: clock)
        shared = ConfiguredServices.Shared(
            store: store, metrics: metrics, log: log, cache: cache, handOff: handOff, contacts: contacts,
            alarm: StorageAlarm(log: log), refusals: refusals, docs: docs, clock: clock,
            deliveryPollInterval: deliveryPollInterval, node: node, firstBackfill: FirstBackfill(),
            timerTicks: FailureStreak(task: "timers", log: log, metrics: metrics),
            storageWork: WorkerPool(name: "http-storage", threads: max(4, config.http.threads)),
            inlineReads: InlineReads(workers: config.http.threads),
            verifiers: VerifierLanes(cores: ProcessInfo.processInfo.activeProcessorCount))
        let first = try ConfiguredServices(config: config, shared: shared)
        services.withLock { $0 = first }
        var http = HTTPServerConfiguration(
            host: config.listen.host, port: config.listen.port, threads: config.http.threads,
            maxBodyBytes: config.http.maxBodyBytes, maxBufferedBodyBytes: config.http.maxBufferedBodyBytes,
            connectionTimeoutSeconds: config.http.timeoutSeconds, headerTimeoutSeconds: config.http.headerTimeoutSeconds,
            requestTimeoutSeconds: config.http.requestTimeoutSeconds, connectionsPerIP: config.http.connectionsPerIP)
        let httpErrors = LimitedLines.httpErrors(log: log, clock: clock)
        self.httpErrors = httpErrors
        http.errorLog = { httpErrors.write($0) }
        accessLines = AccessLines(log, clock: clock)
        http.accessLog = accessLines.sink
        server = HTTPServer(
            configuration: http, router: first.router, observer: ServiceObserver(metrics: metrics, refusals: refusals))
    }

    /// The configuration in force: the one it started with, or the last one `reload` took (whose
    /// `listen`, `database`, `http`, `node` and `log` wait for the next start: `config`'s run).
    package var current: RevenueDotConfig { generation.config }

    /// The generation in force (set by `init`, never nil after it).
    var generation: ConfiguredServices { services.value! }

    /// Starts listening, then takes up the held notifications the configuration now accepts
    /// (`HeldNotifications`) on a thread of its own, so the server answers meanwhile; returns the
    /// bound port. A start that cannot listen has changed nothing.
    @discardableResult
    package func start() throws -> UInt16 {
        let port: UInt16
        do {
            port = try server.start()
        } catch let error as HTTPServerError
            where error.code == .startFailed || error.code == .invalidAddress || error.code == .addressInUse
        {
            // An address that parses but cannot be bound: in use, or not this machine's.
            throw ConfigError(file: config.file, key: "listen", problem: error.message)
        }
        // Commands beside the server (import, backfill, reconcile) work through it, here.
        store.announceServing(at: config.listen.host, port: port)
        let generation = generation
        shared.firstBackfill.begin(waitingAtMost: Self.firstBackfillWait)
        generation.start(predecessor: replacing)
        contacts.start()
        takeUpHeld(by: generation)
        UnservedDeliveries.settle(config: generation.config, store: store, log: log)
        return port
    }

    /// One pass over the held notifications, then over those whose hand-off failed, with
    /// `generation`'s verifiers, on a thread of its own; each outcome is kept and logged (a
    /// `notification.reapplied` line when there were any, and each failure).
    func takeUpHeld(by generation: ConfiguredServices) {
        heldPass.enter()
        NamedThread.start("held-reapply") { [heldOutcome, failedOutcome, heldPass, log] in
            /// False when storage could not be read: nothing was looked at, and the line says so.
            func pass(_ state: NotificationState, into kept: Locked<HeldNotifications.Outcome?>) -> Bool {
                let outcome: HeldNotifications.Outcome
                do { outcome = try generation.held.reapply(state) } catch {
                    // What an earlier pass found stays: nothing was looked at this time.
                    log.error(
                        "notification.apply_failed",
                        "the held and failed notifications could not be read, so none was taken up "
                            + "(tried again at the next start or reload): \(error)",
                        [("state", .text(state.rawValue))])
                    return false
                }
                kept.withLock { $0 = outcome }
                if outcome.applied + outcome.notApplied > 0 {
                    let what = state == .held ? "held notifications" : "notifications whose application had failed"
                    log.info(
                        "notification.reapplied",
                        "\(what): \(outcome.applied) applied now, \(outcome.notApplied) still \(state.rawValue) "
                            + "(revenuedot notifications list\(state == .held ? " --held" : ""))",
                        [
                            ("state", .text(state.rawValue)), ("applied", .integer(Int64(outcome.applied))),
                            ("still", .integer(Int64(outcome.notApplied))),
                        ])
                }
                for failure in outcome.failures {
                    log.error("notification.apply_failed", failure, [("state", .text(state.rawValue))])
                }
                return true
            }
            // Then those whose hand-off failed when they arrived: tried again at every start.
            if pass(.held, into: heldOutcome) { _ = pass(.failed, into: failedOutcome) }
            heldPass.leave()
        }
    }

    /// Waits until the passes over held notifications begun so far are over (tests).
    package func waitForHeldNotifications() { heldPass.wait() }

    /// Reconciles now (tests; `serve` does this every `appleApi.reconcileIntervalMinutes`).
    package func reconcileNow() { generation.reconcile.runOnce() }

    /// Answers the consumption requests due now (tests; `serve` does this every 15 s).
    package func answerConsumptionRequests() { generation.consumption.runOnce() }

    /// Waits up to `seconds` for the scheduler's first tick after the start (tests that post
    /// inputs the start's tick must not come between); false when it has not run by then.
    package func waitForSchedulerStart(seconds: Double = 10) -> Bool {
        generation.scheduler.waitForFirstTick(until: .now() + seconds)
    }

    /// Fires due timers now (tests; the scheduler does this every `scheduler.intervalMs`).
    @discardableResult
    package func fireDueTimers() throws -> Int { try generation.scheduler.tick() }

    /// The port the server listens on.
    package var port: UInt16 { server.port }

    /// What went wrong at start without stopping it, for `serve` to print.
    package var warnings: [String] { store.warnings }
    /// The migrations this start applied to the database's schema, if any.
    package var schemaUpgrade: SchemaUpgrade? { store.schemaUpgrade }

    /// What the start did with held notifications: applied now that the configuration accepts
    /// them, or still held. Nil until a pass is over; one that could not read them leaves the
    /// last one's.
    package var heldNotifications: (applied: Int, stillHeld: Int)? {
        heldOutcome.value.map { ($0.applied, $0.notApplied) }
    }

    /// What the start did with notifications whose hand-off had failed: applied now, or failed
    /// still. Nil until that pass is over.
    package var failedNotifications: (applied: Int, stillFailed: Int)? {
        failedOutcome.value.map { ($0.applied, $0.notApplied) }
    }

    /// How long timers wait at start for the first automatic backfill.
    package static let firstBackfillWait: Double = 120

    /// How long `shutdown` waits for storage to finish after the HTTP drain.
    package static let storageShutdownTimeout: Duration = .seconds(60)

    /// Graceful stop: no new connections, in-flight requests finish, storage is flushed.
    /// Webhook deliveries in flight get a moment to finish; one that does not is sent again
    /// after the restart. False when storage did not finish within `storageTimeout` (a disk that
    /// does not answer): the caller should exit anyway, since what was answered stored is on disk.
    ///
    /// Once the HTTP server has stopped, everything else shares `storageTimeout`: the pass over
    /// held notifications and a scheduler tick wait for their writes, and with a disk that does
    /// not answer they would wait for good, before the storage's own close was ever timed.
    @discardableResult
    package func shutdown(storageTimeout: Duration = storageShutdownTimeout) -> Bool {
        server.shutdown(waiting: { [log] requests, atMost in
            log.info(
                "stop.waiting", "waiting for \(requests) request\(requests == 1 ? "" : "s") in progress to be answered",
                [("at_most_seconds", .integer(Int64(atMost.components.seconds)))])
        })
        // No request comes any more: no line would say the refusals left out of the log (the
        // backfill's, which go through ingest too, are said once it stopped, below).
        shared.refusals.flush()
        accessLines.flush()
        httpErrors.flush()
        // Every request is answered or cut off: what handlers queued has no one to answer.
        shared.storageWork.stop()
        shared.verifiers.stop()
        let deadline = ContinuousClock.now + storageTimeout
        let remaining = { max(.zero, ContinuousClock.now.duration(to: deadline)) }
        // A reload in progress finishes first; none starts after this.
        let generation = lifecycle.withLock { stopped in
            stopped = true
            return self.generation
        }
        // The pass over held notifications stops after the one in hand (what it applied is
        // committed; the rest is taken up at the next start), then the generation's services,
        // then the customer contacts; storage closes last.
        generation.stopCallsToApple()
        let held = GroupedPass(heldPass) { generation.held.stop() }
        let stopped = stopInOrder(
            [StopPhase([held], counts: true, name: "the held notification in hand")] + generation.stopPhases
                + [StopPhase([contacts], counts: false)],
            before: deadline,
            waiting: { [log] phase, atMost in
                log.info(
                    "stop.waiting", "waiting for \(phase)",
                    [("at_most_seconds", .integer(Int64(atMost.components.seconds)))])
            })
        shared.refusals.flush()
        accessLines.flush()
        httpErrors.flush()
        // A second at least: a pass or tick that ended just in time leaves storage its close.
        let closed = store.close(waitingAtMost: max(remaining(), .seconds(1)))
        if let profile = WriteProfile.report() { StandardStreams.error("revenuedot: \(profile)\n") }
        return closed && stopped
    }

    /// The worker `worker` replaces (`lastWorkers`), and `worker` in its place.
    func replacing(_ worker: DeliveryWorker) -> DeliveryWorker? {
        lastWorkers.withLock { last in
            let key = WebhookKey(appId: worker.appId, webhook: worker.webhook)
            defer { last[key] = worker }
            return last[key]
        }
    }
}
