import Foundation
import LoopbackClient
import Threads

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// POSTs webhook bodies to one app's URL.
///
/// A plain `http://` URL to an IP address or `localhost` (a backend on the same host or network)
/// goes over pooled keep-alive sockets: a blocking HTTP/1.1 exchange costs a fraction of
/// URLSession's machinery, which matters when deliveries must keep up with ingest on the same
/// cores. Everything else (https, host names) goes through URLSession (libcurl on Linux), one
/// session per app with reused connections. `send` blocks the calling delivery thread until the
/// answer or the deadline.
///
/// Each attempt is bounded, so that one slow or hostile receiver holds a delivery thread (and
/// with it the app's other customers) for at most `timeoutSeconds`:
/// - **Deadline**: `timeoutSeconds` bounds the whole attempt (connecting, sending the event,
///   reading the answer) on both paths, however steadily the receiver trickles bytes. An attempt
///   not answered by then fails with "no answer within N s" and is retried on the app's schedule.
/// - **Answer size**: the head and at most `maxResponseBodyBytes` (64 KiB) of body are read. An
///   attempt is answered once the head and either the whole body or its first 64 KiB have
///   arrived by the deadline; the status then decides. A longer body is not read further and its
///   connection is closed, not pooled: the receiver has answered, and failing the attempt would
///   only resend an event it accepted, on every retry, until the event is dead-lettered. A body
///   cut short (the receiver closed, or the deadline passed) is no answer, and the event goes
///   again: at-least-once delivery prefers a duplicate to a loss. On the direct path that also
///   bounds memory: a head over 64 KiB is malformed, and nothing past the limit is read.
/// - **Redirects** are never followed, on either path: a 3xx is a failed attempt whose reason
///   quotes the `Location` (`WebhookAnswer`).
/// - **Malformed answers** (a status, `Content-Length` or chunk size that is not a count in
///   range) fail the attempt on the direct path (`ResponseReader`).
///
/// On the URLSession path libcurl and Foundation read the answer, and two gaps remain that
/// nothing outside Foundation can close: swift-corelibs-foundation (Swift 6.3) traps on a
/// `Content-Length` from 2^63 - 512 to 2^63 - 1 (it converts libcurl's `double` to `Int64`), and
/// it reads body data past the limit until the task's cancel takes effect (see
/// `WebhookSessionDelegate`), so memory there is bounded by the deadline, not by the limit.
final class WebhookSender: Sendable {
    /// The most body bytes of an answer read; see the type's documentation for what a longer
    /// body means.
    static let maxResponseBodyBytes = 64 * 1024

    let config: WebhookConfig
    /// Only when the URL needs it. Never invalidated: on Linux, invalidating a session while a
    /// sender is torn down has crashed the process; one session lives as long as its app's worker.
    private let session: URLSession?
    private let sessionDelegate = WebhookSessionDelegate(maxBodyBytes: maxResponseBodyBytes)
    private let direct: DirectTarget?
    private let pool = Locked<[PooledConnection]>([])

    /// - Parameter direct: whether plain-http URLs to address literals may skip URLSession
    ///   (tests turn it off to exercise the URLSession path on a loopback receiver).
    init(config: WebhookConfig, direct allowDirect: Bool = true) {
        self.config = config
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = TimeInterval(config.timeoutSeconds)
        configuration.timeoutIntervalForResource = TimeInterval(config.timeoutSeconds)
        configuration.httpMaximumConnectionsPerHost = config.concurrency
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        direct = allowDirect ? DirectTarget(config.url) : nil
        session =
            direct == nil ? URLSession(configuration: configuration, delegate: sessionDelegate, delegateQueue: nil) : nil
    }

    /// Sends one body; success is a 2xx answered within `timeoutSeconds`.
    func send(_ body: Data, eventId: String, at now: Date) -> DeliveryOutcome {
        let deadline = DispatchTime.now() + .seconds(config.timeoutSeconds)
        var headers = ["Content-Type": "application/json", "User-Agent": "RevenueDot"]
        if let authorization = config.authorization { headers["Authorization"] = authorization }
        if let secret = config.signingSecret {
            headers[WebhookSignature.header] = WebhookSignature.value(
                body: body, secret: secret, at: Int64(now.timeIntervalSince1970))
        }
        if let direct { return sendDirect(body, headers: headers, to: direct, by: deadline) }
        return sendWithSession(body, headers: headers, by: deadline)
    }

    private var noAnswerInTime: DeliveryOutcome {
        .failed(status: nil, reason: "no answer within \(config.timeoutSeconds) s")
    }

    /// Over a pooled connection; a reused one that turns out closed by the server is replaced
    /// once (a keep-alive race, not an answer), a fresh one that fails is a failed attempt.
    private func sendDirect(
        _ body: Data, headers: [String: String], to target: DirectTarget, by deadline: DispatchTime
    ) -> DeliveryOutcome {
        let limits = ExchangeLimits(deadline: deadline, maxBodyBytes: Self.maxResponseBodyBytes)
        var reused = pool.withLock { $0.popLast() }
        while true {
            let wasReused = reused != nil
            let connection: PooledConnection
            if let pooled = reused {
                connection = pooled
            } else {
                let now = DispatchTime.now()
                guard now < deadline else { return noAnswerInTime }
                let left = Double(deadline.uptimeNanoseconds - now.uptimeNanoseconds) / 1e9
                do {
                    connection = PooledConnection(
                        try LoopbackConnection(host: target.host, port: target.port, timeoutSeconds: left))
                } catch {
                    return .failed(status: nil, reason: "no answer: cannot connect to \(target.host):\(target.port) (\(error))")
                }
            }
            reused = nil
            do {
                let response = try connection.connection.request(
                    "POST", target.path, headers: headers, body: body, limits: limits)
                if connection.connection.isOpen { pool.withLock { $0.append(connection) } }
                return WebhookAnswer(status: response.status, location: response.headers["location"]).outcome
            } catch let error as LoopbackClientError
                where wasReused && [.sendFailed, .closedBeforeResponse].contains(error.code)
            {
                // The server had closed this idle connection: nothing of an answer came, so the
                // request goes once more on a new one. Any answer read, even partly, is final.
                continue
            } catch let error as LoopbackClientError where error.code == .timedOut {
                return noAnswerInTime
            } catch {
                return .failed(status: nil, reason: "no answer: \(error)")
            }
        }
    }

    private func sendWithSession(_ body: Data, headers: [String: String], by deadline: DispatchTime) -> DeliveryOutcome {
        guard let session else { return .failed(status: nil, reason: "no URLSession for \(config.url)") }
        var request = URLRequest(url: config.url, timeoutInterval: TimeInterval(config.timeoutSeconds))
        request.httpMethod = "POST"
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let task = session.dataTask(with: request)
        let exchange = sessionDelegate.begin(task)
        defer { sessionDelegate.end(task) }
        task.resume()
        let end = exchange.wait(until: deadline)
        // Ends a task still running: past the deadline, or past the body limit (a no-op once completed).
        task.cancel()
        switch end {
        case nil, .timedOut: return noAnswerInTime
        case .answered(let answer): return answer.outcome
        case .failed(let reason): return .failed(status: nil, reason: reason)
        }
    }
}

/// Where a plain-http webhook goes, when its host is an address literal or `localhost`.
private struct DirectTarget: Sendable {
    var host: String
    var port: UInt16
    var path: String

    init?(_ url: URL) {
        guard url.scheme?.lowercased() == "http", var host = url.host, url.user == nil else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let isLiteral = host == "localhost" || host.allSatisfy { $0.isNumber || $0 == "." } || host.contains(":")
        guard isLiteral else { return nil }
        self.host = host
        // Configuration refuses another port; a URL made elsewhere gets nil, not a crash.
        guard let port = url.httpPort else { return nil }
        self.port = port
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let encoded = components?.percentEncodedPath ?? ""
        var path = encoded.isEmpty ? "/" : encoded
        if let query = components?.percentEncodedQuery { path += "?\(query)" }
        self.path = path
    }
}

/// A keep-alive connection that moves between delivery threads, used by one at a time.
private final class PooledConnection: @unchecked Sendable {
    let connection: LoopbackConnection
    init(_ connection: LoopbackConnection) { self.connection = connection }
}
