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
/// answer or the timeout.
final class WebhookSender: Sendable {
    let config: WebhookConfig
    /// Only when the URL needs it. Never invalidated: on Linux, invalidating a session while a
    /// sender is torn down has crashed the process; one session lives as long as its app's worker.
    private let session: URLSession?
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
        session = direct == nil ? URLSession(configuration: configuration) : nil
    }

    /// Sends one body; success is any 2xx within the timeout.
    func send(_ body: Data, eventId: String, at now: Date) -> DeliveryOutcome {
        var headers = ["Content-Type": "application/json", "User-Agent": "RevenueDot"]
        if let authorization = config.authorization { headers["Authorization"] = authorization }
        if let secret = config.signingSecret {
            headers[WebhookSignature.header] = WebhookSignature.value(
                body: body, secret: secret, at: Int64(now.timeIntervalSince1970))
        }
        if let direct { return sendDirect(body, headers: headers, to: direct) }
        return sendWithSession(body, headers: headers)
    }

    private func outcome(status: Int) -> DeliveryOutcome {
        (200..<300).contains(status) ? .delivered(status: status) : .failed(status: status, reason: "answered HTTP \(status)")
    }

    /// Over a pooled connection; a reused one that turns out closed by the server is replaced
    /// once (a keep-alive race, not an answer), a fresh one that fails is a failed attempt.
    private func sendDirect(_ body: Data, headers: [String: String], to target: DirectTarget) -> DeliveryOutcome {
        var reused = pool.withLock { $0.popLast() }
        while true {
            let wasReused = reused != nil
            let connection: PooledConnection
            do {
                connection =
                    try reused
                    ?? PooledConnection(
                        LoopbackConnection(
                            host: target.host, port: target.port, timeoutSeconds: Double(config.timeoutSeconds)))
            } catch {
                return .failed(status: nil, reason: "no answer: cannot connect to \(target.host):\(target.port) (\(error))")
            }
            reused = nil
            do {
                let response = try connection.connection.request("POST", target.path, headers: headers, body: body)
                if connection.connection.isOpen { pool.withLock { $0.append(connection) } }
                return outcome(status: response.status)
            } catch let error as LoopbackClientError
                where wasReused && [.sendFailed, .closedBeforeResponse].contains(error.code)
            {
                // The server had closed this idle connection: nothing of an answer came, so the
                // request goes once more on a new one. Any answer read, even partly, is final.
                continue
            } catch {
                return .failed(status: nil, reason: "no answer: \(error)")
            }
        }
    }

    private func sendWithSession(_ body: Data, headers: [String: String]) -> DeliveryOutcome {
        guard let session else { return .failed(status: nil, reason: "no URLSession for \(config.url)") }
        var request = URLRequest(url: config.url, timeoutInterval: TimeInterval(config.timeoutSeconds))
        request.httpMethod = "POST"
        request.httpBody = body
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let answer = Locked<DeliveryOutcome?>(nil)
        let done = MonotonicSemaphore()
        let task = session.dataTask(with: request) { _, response, error in
            if let error {
                answer.withLock { $0 = .failed(status: nil, reason: "no answer: \(error.localizedDescription)") }
            } else if let status = (response as? HTTPURLResponse)?.statusCode {
                answer.withLock { $0 = self.outcome(status: status) }
            } else {
                answer.withLock { $0 = .failed(status: nil, reason: "the answer was not HTTP") }
            }
            done.signal()
        }
        task.resume()
        // The session's own timeout normally ends the task; this is the backstop.
        if done.wait(timeout: .now() + .seconds(config.timeoutSeconds + 5)) == .timedOut {
            task.cancel()
            return .failed(status: nil, reason: "no answer within \(config.timeoutSeconds) s")
        }
        return answer.value ?? .failed(status: nil, reason: "no outcome")
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
