import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// POSTs webhook bodies to one app's URL.
///
/// URLSession (libcurl on Linux) so that https endpoints work; one session per app, reused
/// connections. `send` blocks the calling delivery thread until the answer or the timeout.
final class WebhookSender: Sendable {
    let config: WebhookConfig
    private let session: URLSession

    init(config: WebhookConfig) {
        self.config = config
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = TimeInterval(config.timeoutSeconds)
        configuration.timeoutIntervalForResource = TimeInterval(config.timeoutSeconds)
        configuration.httpMaximumConnectionsPerHost = config.concurrency
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        session = URLSession(configuration: configuration)
    }

    deinit {
        session.invalidateAndCancel()
    }

    /// Sends one body; success is any 2xx within the timeout.
    func send(_ body: Data, eventId: String, at now: Date) -> DeliveryOutcome {
        var request = URLRequest(url: config.url, timeoutInterval: TimeInterval(config.timeoutSeconds))
        request.httpMethod = "POST"
        request.httpBody = body
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("RevenueDot", forHTTPHeaderField: "User-Agent")
        if let authorization = config.authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
        if let secret = config.signingSecret {
            let value = WebhookSignature.value(body: body, secret: secret, at: Int64(now.timeIntervalSince1970))
            request.setValue(value, forHTTPHeaderField: WebhookSignature.header)
        }
        let answer = Answer()
        let done = DispatchSemaphore(value: 0)
        let task = session.dataTask(with: request) { _, response, error in
            if let error {
                answer.set(.failed(status: nil, reason: "no answer: \(error.localizedDescription)"))
            } else if let status = (response as? HTTPURLResponse)?.statusCode {
                answer.set(
                    (200..<300).contains(status)
                        ? .delivered(status: status) : .failed(status: status, reason: "answered HTTP \(status)"))
            } else {
                answer.set(.failed(status: nil, reason: "the answer was not HTTP"))
            }
            done.signal()
        }
        task.resume()
        // The session's own timeout normally ends the task; this is the backstop.
        if done.wait(timeout: .now() + .seconds(config.timeoutSeconds + 5)) == .timedOut {
            task.cancel()
            return .failed(status: nil, reason: "no answer within \(config.timeoutSeconds) s")
        }
        return answer.get() ?? .failed(status: nil, reason: "no outcome")
    }
}

/// The outcome handed from URLSession's delegate queue to the waiting thread.
private final class Answer: @unchecked Sendable {
    private let lock = NSLock()
    private var outcome: DeliveryOutcome?
    func set(_ value: DeliveryOutcome) { lock.withLock { outcome = value } }
    func get() -> DeliveryOutcome? { lock.withLock { outcome } }
}
