import Foundation
import Synchronization

/// The state libmicrohttpd's callbacks reach through their context pointer: the routes, the
/// limits, the counters and the observer. It outlives the daemon (the daemon handle retains it).
final class ServerCore: Sendable {
    let router: Router
    let maxBodyBytes: Int
    let observer: (any HTTPServerObserver)?
    let errorLog: (@Sendable (String) -> Void)?

    /// Handler invocations in progress.
    let inFlightRequests = Atomic<Int>(0)
    /// Requests with a queued response that libmicrohttpd has not finished sending.
    let respondingRequests = Atomic<Int>(0)
    let openConnections = Atomic<Int>(0)
    /// Set by shutdown: responses then carry `Connection: close` so keep-alive clients leave.
    let draining = Atomic<Bool>(false)
    /// libmicrohttpd's messages while the daemon starts, for the start error.
    private let startupMessages = Mutex<[String]?>(nil)

    init(configuration: HTTPServerConfiguration, router: Router, observer: (any HTTPServerObserver)?) {
        self.router = router
        self.maxBodyBytes = configuration.maxBodyBytes
        self.observer = observer
        self.errorLog = configuration.errorLog
    }

    // MARK: - Answering

    /// Routes a complete request and runs its handler; the result is ready to queue.
    func respond(to request: HTTPRequest, started: ContinuousClock.Instant) -> HTTPResponse {
        let response: HTTPResponse
        let route: String
        switch router.match(method: request.method, path: request.path) {
        case .found(let handler, let pattern, let parameters):
            var request = request
            request.pathParameters = parameters
            inFlightRequests.add(1, ordering: .relaxed)
            let answer = handler(request)
            inFlightRequests.subtract(1, ordering: .relaxed)
            // libmicrohttpd drops the connection for a status outside 100...999; answer 500 instead.
            response =
                (100...999).contains(answer.status)
                ? answer
                : .error(
                    status: 500, code: "internal_error", message: "The handler answered with status \(answer.status).")
            route = pattern
        case .notFound:
            response = .error(status: 404, code: "not_found", message: "No route for \(request.path).")
            route = "unmatched"
        case .methodNotAllowed(let allowed):
            var refusal = HTTPResponse.error(
                status: 405, code: "method_not_allowed",
                message: "\(request.method) is not allowed on \(request.path).")
            refusal.headers["Allow"] = allowed.joined(separator: ", ")
            response = refusal
            route = "unmatched"
        }
        finished(method: request.method, route: route, status: response.status, started: started)
        return response
    }

    /// The answer to a body over the limit.
    func payloadTooLarge(method: String, path: String, started: ContinuousClock.Instant) -> HTTPResponse {
        let route: String
        if case .found(_, let pattern, _) = router.match(method: method, path: path) {
            route = pattern
        } else {
            route = "unmatched"
        }
        finished(method: method, route: route, status: 413, started: started)
        return .error(
            status: 413, code: "payload_too_large",
            message: "The request body is larger than \(maxBodyBytes) bytes.")
    }

    private func finished(method: String, route: String, status: Int, started: ContinuousClock.Instant) {
        guard let observer else { return }
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        observer.requestFinished(method: method, route: route, status: status, seconds: seconds)
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
