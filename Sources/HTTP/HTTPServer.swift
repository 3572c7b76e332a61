import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An HTTP/1.1 server on libmicrohttpd: a pool of worker threads, each running a `poll` event
/// loop over its connections and calling handlers synchronously once a request's body is in.
///
/// Reads are event-driven, so a client that stalls mid-request holds a socket, not a thread,
/// and is dropped after `connectionTimeoutSeconds`; one that trickles bytes is cut off once its
/// headers take longer than `headerTimeoutSeconds` or its whole request longer than
/// `requestTimeoutSeconds` (`RequestDeadlines`). Bodies being received are held in memory up
/// to `maxBufferedBodyBytes` for all connections together (`BodyBudget`). Keep-alive is
/// libmicrohttpd's.
public final class HTTPServer: Sendable {
    private enum State {
        case idle
        case running(MicroHTTPDDaemon)
        case stopped
    }

    private let configuration: HTTPServerConfiguration
    private let core: ServerCore
    private let state = Mutex<State>(.idle)

    /// Creates a server; nothing listens until `start()`.
    public init(configuration: HTTPServerConfiguration, router: Router, observer: (any HTTPServerObserver)? = nil) {
        self.configuration = configuration
        self.core = ServerCore(configuration: configuration, router: router, observer: observer)
    }

    /// Routes the requests that arrive from now on with `router`, without closing a connection;
    /// requests already routed finish with the handlers they were given.
    public func replaceRouter(_ router: Router) {
        core.replace(router: router)
    }

    /// Binds and starts the workers; returns the bound port (the kernel's choice when the
    /// configured port is 0).
    ///
    /// Throws `HTTPServerError` for an invalid configuration, or with libmicrohttpd's reason
    /// (for example "Address already in use") when it cannot listen.
    @discardableResult
    public func start() throws -> UInt16 {
        try validate(configuration)
        return try state.withLock { state throws(HTTPServerError) -> UInt16 in
            guard case .idle = state else {
                throw HTTPServerError(code: .invalidState, message: "The server was already started.")
            }
            let daemon = try MicroHTTPDDaemon(configuration: configuration, core: core)
            // Weak: the check must not keep the core of a server dropped without shutdown.
            core.deadlines?.start { [weak core] now in core?.expireDeferred(at: now) }
            state = .running(daemon)
            return daemon.port
        }
    }

    /// The bound port while running; 0 before `start()` and after `shutdown()`.
    public var port: UInt16 {
        state.withLock { state in
            if case .running(let daemon) = state { daemon.port } else { 0 }
        }
    }

    /// How long `shutdown` waits by default for requests in progress (the drain).
    public static let drainSeconds: Double = 30

    /// Stops gracefully: new connections are refused at once, requests already begun finish
    /// (their bodies arrive, their handlers return and their responses are sent) for up to
    /// `timeout` seconds, and then every connection is closed.
    ///
    /// Responses sent while draining carry `Connection: close`. A request whose body is still
    /// arriving is waited for (Sandbox sends a notification once), within the request deadline
    /// (`requestTimeoutSeconds`) that cuts off a client that stalls, and within `timeout`. A deferred handler that has
    /// not answered by then is answered 503 for it (its own answer is dropped), as is a deferred
    /// request that comes in after that, and the 503s get up to a second to be sent. Blocks the
    /// caller; call it from outside the handlers.
    ///
    /// When requests are still in progress `patience` after the stop began, `waiting` is told
    /// once how many, and the longest the drain may yet take for them (the rest of `timeout`),
    /// so that a stop that waits says on what.
    public func shutdown(
        timeout: Double = drainSeconds, patience: Duration = .seconds(2),
        waiting: (_ requests: Int, _ atMost: Duration) -> Void = { _, _ in }
    ) {
        let daemon = state.withLock { state -> MicroHTTPDDaemon? in
            defer { state = .stopped }
            if case .running(let daemon) = state { return daemon }
            return nil
        }
        guard let daemon else { return }
        core.draining.store(true, ordering: .relaxed)
        daemon.quiesce()
        let drain = Duration.milliseconds(Int(max(timeout, 0) * 1000))
        let drainEnds = ContinuousClock.now + drain
        waitForResponses(for: min(patience, drain))
        let open = core.openRequests.load(ordering: .relaxed)
        if open > 0, ContinuousClock.now < drainEnds {
            // The drain's end bounds them all: a request deadline does not bound a handler
            // still at work, nor an answer being sent.
            waiting(open, ContinuousClock.now.duration(to: drainEnds))
            waitForResponses(for: ContinuousClock.now.duration(to: drainEnds))
        }
        // Requests whose handler never answered get a 503 (Apple retries), and new ones are no
        // longer suspended, so that no connection is left suspended: libmicrohttpd aborts the
        // process if it is stopped with one. The 503s get a moment to be sent.
        if core.stopSuspending() > 0 { waitForResponses(for: .seconds(1)) }
        // A request another thread settled is resumed before it leaves the registry: wait for
        // that (a moment at most), and stop the deadlines' checks, before libmicrohttpd stops.
        let resumedBy = ContinuousClock.now + .seconds(5)
        while core.suspendedCount > 0, ContinuousClock.now < resumedBy { usleep(1_000) }
        core.deadlines?.stop()
        daemon.stop()
    }

    /// Waits until no request is being received or answered, or `limit` has passed.
    private func waitForResponses(for limit: Duration) {
        let deadline = ContinuousClock.now + limit
        while core.openRequests.load(ordering: .relaxed) > 0, ContinuousClock.now < deadline {
            usleep(2_000)
        }
    }

    /// Handler invocations in progress.
    public var inFlightRequests: Int { core.inFlightRequests.load(ordering: .relaxed) }

    /// Client connections currently open.
    public var openConnections: Int { core.openConnections.load(ordering: .relaxed) }

    /// Bytes of request bodies held now against `maxBufferedBodyBytes`: declared lengths of the
    /// bodies being received or handled, and what has arrived of chunked ones.
    public var bufferedBodyBytes: Int { core.bodyBudget.inUse }

    private func validate(_ configuration: HTTPServerConfiguration) throws(HTTPServerError) {
        func invalid(_ message: String) -> HTTPServerError {
            HTTPServerError(code: .invalidConfiguration, message: message)
        }
        guard (1...1024).contains(configuration.threads) else {
            throw invalid("threads must be between 1 and 1024, not \(configuration.threads).")
        }
        guard configuration.maxBodyBytes >= 0 else {
            throw invalid("maxBodyBytes must not be negative.")
        }
        guard configuration.maxBufferedBodyBytes >= configuration.maxBodyBytes else {
            throw invalid("maxBufferedBodyBytes must be at least maxBodyBytes (\(configuration.maxBodyBytes)).")
        }
        for (name, seconds) in [
            ("connectionTimeoutSeconds", configuration.connectionTimeoutSeconds),
            ("headerTimeoutSeconds", configuration.headerTimeoutSeconds),
            ("requestTimeoutSeconds", configuration.requestTimeoutSeconds),
        ] where !(0...Int(UInt32.max)).contains(seconds) {
            throw invalid("\(name) must be between 0 (none) and \(UInt32.max).")
        }
        guard (0...Int(UInt32.max)).contains(configuration.connectionsPerIP) else {
            throw invalid("connectionsPerIP must be between 0 (no limit) and \(UInt32.max).")
        }
        // libmicrohttpd splits the limit between the workers; each needs at least one connection.
        guard configuration.connectionLimit >= configuration.threads, configuration.connectionLimit <= Int(UInt32.max)
        else {
            throw invalid("connectionLimit must be at least threads (\(configuration.threads)).")
        }
    }
}
