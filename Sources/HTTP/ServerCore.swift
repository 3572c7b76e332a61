import Foundation
import Synchronization
import Threads

/// The state libmicrohttpd's callbacks reach through their context pointer: the routes, the
/// limits, the counters and the observer. It outlives the daemon (the daemon handle retains it).
final class ServerCore: Sendable {
    /// The routes now; a reload puts others in place (`replace(router:)`) while requests go on.
    private let routes: Mutex<Router>
    var router: Router { routes.withLock { $0 } }
    let maxBodyBytes: Int
    let observer: (any HTTPServerObserver)?
    let errorLog: (@Sendable (String) -> Void)?
    let accessLog: (@Sendable (AccessEntry) -> Void)?

    /// Handler invocations in progress.
    let inFlightRequests = Atomic<Int>(0)
    /// Requests begun (their request line is in) and not yet completed: being received, handled,
    /// or answered with a response libmicrohttpd has not finished sending. A kept-alive
    /// connection between requests has none.
    let openRequests = Atomic<Int>(0)
    let openConnections = Atomic<Int>(0)
    /// Set by shutdown: responses then carry `Connection: close` so keep-alive clients leave.
    let draining = Atomic<Bool>(false)
    /// Cuts off connections too slow to send a request's headers or a whole request; nil when
    /// both deadlines are off.
    let deadlines: RequestDeadlines?
    /// Contexts of requests whose head libmicrohttpd has not handed over yet (`AwaitingHead`).
    let awaitingHead = AwaitingHead()
    /// The memory request bodies may hold, all connections together (`BodyAdmission`).
    let bodyBudget: BodyBudget
    /// How long a deferred handler may take to answer before its request is answered 503 for it
    /// (`expireDeferred`); nil when that is off.
    let deferredLimit: Duration?
    /// Suspended connections whose deferred handler has not answered yet, with how to answer
    /// them: libmicrohttpd refuses to stop (it aborts the process) while one is suspended. Once
    /// `closed` (shutdown gave up waiting), no connection is suspended any more.
    private let suspended = Mutex<(closed: Bool, waiting: [ObjectIdentifier: Suspended])>((false, [:]))
    /// libmicrohttpd's messages while the daemon starts, for the start error.
    private let startupMessages = Mutex<[String]?>(nil)

    init(configuration: HTTPServerConfiguration, router: Router, observer: (any HTTPServerObserver)?) {
        self.routes = Mutex(router)
        self.maxBodyBytes = configuration.maxBodyBytes
        self.accessLog = configuration.accessLog
        self.observer = observer
        self.errorLog = configuration.errorLog
        self.bodyBudget = BodyBudget(limit: configuration.maxBufferedBodyBytes, maxBodyBytes: configuration.maxBodyBytes)
        let observer = observer
        func limit(_ seconds: Int) -> Duration? { seconds > 0 ? .seconds(seconds) : nil }
        deadlines = RequestDeadlines(
            headerLimit: limit(configuration.headerTimeoutSeconds), requestLimit: limit(configuration.requestTimeoutSeconds)
        ) { observer?.connectionCutOff() }
        deferredLimit = configuration.handlerTimeoutSeconds > 0 ? .seconds(configuration.handlerTimeoutSeconds) : nil
    }

    // MARK: - Answering

    /// What became of a complete request.
    enum Dispatched {
        /// The answer, ready to queue.
        case now(HTTPResponse)
        /// A deferred handler runs; `suspend` has been asked for, and the reply arrives through
        /// `resume` once it is ready.
        case later
    }

    /// Routes a complete request and runs its handler. For a deferred handler, `suspend` runs
    /// before the handler starts and `resume` after its answer is stored in `reply`.
    func dispatch(
        _ request: HTTPRequest, started: ContinuousClock.Instant, reply: DeferredReply, suspend: () -> Void,
        resume: @escaping @Sendable () -> Void
    ) -> Dispatched {
        switch router.match(method: request.method, path: request.path) {
        case .found(let handler, let pattern, let parameters):
            var request = request
            request.pathParameters = parameters
            inFlightRequests.add(1, ordering: .relaxed)
            switch handler {
            case .immediate(let handler):
                let answer = sanitize(handler(request), path: request.path)
                inFlightRequests.subtract(1, ordering: .relaxed)
                finished(method: request.method, route: pattern, status: answer.status, started: started)
                return .now(answer)
            case .deferred(let handler):
                let waiting = Suspended(
                    reply: reply, method: request.method, route: pattern, started: started, suspendedAt: .now,
                    resume: resume)
                // Suspended under the registry's lock, so a shutdown that closed it never misses one.
                let admitted = suspended.withLock { state -> Bool in
                    guard !state.closed else { return false }
                    reply.pending.store(true, ordering: .relaxed)
                    suspend()
                    state.waiting[ObjectIdentifier(reply)] = waiting
                    return true
                }
                guard admitted else {
                    inFlightRequests.subtract(1, ordering: .relaxed)
                    let refusal = router.shapedRefusal(Self.shuttingDown, path: request.path)
                    finished(method: request.method, route: pattern, status: refusal.status, started: started)
                    return .now(refusal)
                }
                let path = request.path
                handler(request) { [self] answer in settle(waiting, with: sanitize(answer, path: path)) }
                return .later
            }
        case .notFound:
            return .now(unmatched(Self.notFound(request.path), method: request.method, path: request.path, started: started))
        case .methodNotAllowed(let allowed):
            let refusal = Self.methodNotAllowed(request.method, on: request.path, allowed: allowed)
            return .now(unmatched(refusal, method: request.method, path: request.path, started: started))
        case .invalidPath(let problem):
            return .now(unmatched(Self.invalidPath(problem), method: request.method, path: request.path, started: started))
        }
    }

    /// The 404 or 405 for a request no route takes; nil when one does.
    func unrouted(method: String, path: String) -> HTTPResponse? {
        switch router.match(method: method, path: path) {
        case .found: nil
        case .notFound: Self.notFound(path)
        case .methodNotAllowed(let allowed): Self.methodNotAllowed(method, on: path, allowed: allowed)
        case .invalidPath(let problem): Self.invalidPath(problem)
        }
    }

    /// `refusal`, shaped for `path` and counted under the `unmatched` route.
    private func unmatched(_ refusal: HTTPResponse, method: String, path: String, started: ContinuousClock.Instant)
        -> HTTPResponse
    {
        finished(method: method, route: "unmatched", status: refusal.status, started: started)
        return router.shapedRefusal(refusal, path: path)
    }

    private static func invalidPath(_ problem: String) -> HTTPResponse {
        .error(status: 400, code: "bad_request", message: "The path is not valid: \(problem).")
    }

    private static func notFound(_ path: String) -> HTTPResponse {
        .error(status: 404, code: "not_found", message: "No route for \(quoted(path)).")
    }

    private static func methodNotAllowed(_ method: String, on path: String, allowed: [String]) -> HTTPResponse {
        var refusal = HTTPResponse.error(
            status: 405, code: "method_not_allowed", message: "\(quoted(method)) is not allowed on \(quoted(path)).")
        refusal.headers["Allow"] = allowed.joined(separator: ", ")
        return refusal
    }

    /// What the client sent, cut to its first 200 characters for an error message: a URL may be
    /// as long as libmicrohttpd's buffer, and the error would send it all back.
    static func quoted(_ sent: String) -> String {
        let limit = 200
        return sent.count > limit ? String(sent.prefix(limit)) + "…" : sent
    }

    /// A suspended connection waiting for its deferred handler.
    struct Suspended: Sendable {
        let reply: DeferredReply
        let method: String
        let route: String
        let started: ContinuousClock.Instant
        /// When its handler began: the deferred deadline counts from here.
        let suspendedAt: ContinuousClock.Instant
        let resume: @Sendable () -> Void
    }

    /// Gives a suspended request its answer and resumes its connection, unless it was answered
    /// already (then this answer is dropped and the connection left alone).
    ///
    /// Resumed first, and only then out of the registry: a shutdown waits for the registry to
    /// empty (`suspendedCount`) before it stops libmicrohttpd, which aborts the process when
    /// stopped with a connection suspended, and a resume after the stop would touch freed memory.
    private func settle(_ waiting: Suspended, with answer: HTTPResponse) {
        guard waiting.reply.settle(answer) else { return }
        waiting.resume()
        _ = suspended.withLock { $0.waiting.removeValue(forKey: ObjectIdentifier(waiting.reply)) }
        finished(method: waiting.method, route: waiting.route, status: answer.status, started: waiting.started)
        inFlightRequests.subtract(1, ordering: .relaxed)
    }

    /// Connections suspended and not yet resumed.
    var suspendedCount: Int { suspended.withLock { $0.waiting.count } }

    /// For a shutdown that has waited long enough: from now on a deferred request is answered
    /// 503 at once instead of suspending its connection, and every request still waiting for
    /// its handler is answered 503 and resumed (their handlers' answers are dropped). After this
    /// no connection is suspended, so libmicrohttpd can stop. Returns how many were answered.
    func stopSuspending() -> Int {
        let waiting = suspended.withLock { state in
            state.closed = true
            return Array(state.waiting.values)
        }
        for request in waiting { settle(request, with: router.shapedRefusal(Self.shuttingDown, path: request.route)) }
        return waiting.count
    }

    /// Answers 503 for every deferred handler that has not answered within `deferredLimit` of
    /// starting at `now`, and resumes its connection (the handler's own answer, if it ever comes,
    /// is dropped). A storage commit that never returns (a disk that hangs) would otherwise hold
    /// the connection for good, and Apple's retries would pile up to the connection limit; a 503
    /// is retried, and a commit that lands after all makes the retry a duplicate. Returns how many.
    @discardableResult
    func expireDeferred(at now: ContinuousClock.Instant) -> Int {
        guard let limit = deferredLimit else { return 0 }
        let late = suspended.withLock { state in state.waiting.values.filter { now - $0.suspendedAt > limit } }
        for request in late { settle(request, with: router.shapedRefusal(Self.handlerTimedOut(limit), path: request.route)) }
        return late.count
    }

    /// The answer to a request whose handler took longer than `limit`: Apple retries a 503.
    private static func handlerTimedOut(_ limit: Duration) -> HTTPResponse {
        .retryLater("timed_out", "No answer within \(limit.components.seconds) s: the request may be sent again.")
    }

    /// The answer to a request the server stopped before answering: Apple retries a 503.
    private static var shuttingDown: HTTPResponse {
        .retryLater("shutting_down", "The server stopped before this request was answered.")
    }

    /// A final answer is 200...599: libmicrohttpd drops the connection for a status outside
    /// 100...999, and sends a 1xx as the final answer, which a client reads as interim and
    /// waits on; answer 500 instead.
    private func sanitize(_ answer: HTTPResponse, path: String) -> HTTPResponse {
        guard !(200...599).contains(answer.status) else { return answer }
        let replaced = HTTPResponse.error(
            status: 500, code: "internal_error", message: "The handler answered with status \(answer.status).")
        return router.shapedRefusal(replaced, path: path)
    }

    /// `answer`, shaped for `path` and counted in the metrics of the route `path` would have reached.
    func refused(_ answer: HTTPResponse, method: String, path: String, started: ContinuousClock.Instant)
        -> HTTPResponse
    {
        let router = router
        let route: String
        var parameters: [String: String] = [:]
        if case .found(_, let pattern, let matched) = router.match(method: method, path: path) {
            (route, parameters) = (pattern, matched)
        } else {
            route = "unmatched"
        }
        observer?.requestRefused(method: method, route: route, parameters: parameters, status: answer.status)
        finished(method: method, route: route, status: answer.status, started: started)
        return router.shapedRefusal(answer, path: path)
    }

    private func finished(method: String, route: String, status: Int, started: ContinuousClock.Instant) {
        guard let observer else { return }
        observer.requestFinished(method: method, route: route, status: status, seconds: (ContinuousClock.now - started).inSeconds)
    }

    /// Routes the requests that arrive from now on with `router`; those already routed finish
    /// with the handlers they were given.
    func replace(router: Router) {
        routes.withLock { $0 = router }
    }

    // MARK: - Connections and messages

    func connectionOpened() {
        openConnections.add(1, ordering: .relaxed)
        observer?.connectionOpened()
    }

    func connectionClosed() {
        openConnections.subtract(1, ordering: .relaxed)
        observer?.connectionClosed()
    }

    /// Collects libmicrohttpd's messages from now until `endCollectingMessages()`.
    func beginCollectingMessages() {
        startupMessages.withLock { $0 = [] }
    }

    func endCollectingMessages() -> [String] {
        startupMessages.withLock { messages in
            defer { messages = nil }
            return messages ?? []
        }
    }

    func log(_ message: String) {
        let collected = startupMessages.withLock { messages -> Bool in
            guard messages != nil else { return false }
            messages?.append(message)
            return true
        }
        if !collected {
            errorLog?(message)
        }
    }
}
