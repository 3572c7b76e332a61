import Foundation
import Synchronization
import Threads

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The delegate of one app's webhook `URLSession`: it refuses every redirect, so that a 3xx comes
/// back as the answer, and ends an exchange once its body passes `maxBodyBytes`, for the
/// exchanges its sender threads wait on (`begin`, `SessionExchange.wait`, `end`).
///
/// A session delegate, not a task delegate: with swift-corelibs-foundation (Swift 6.3) a task
/// delegate is asked about the redirect but never told that its task completed.
///
/// Memory on this path is bounded by the attempt's deadline (the sender then cancels the task),
/// not by `maxBodyBytes`: Foundation on Linux reads the whole body of a 301 to 308 answer into
/// memory before it offers the redirect, and queues body data for the delegate until a cancel
/// takes effect, which over a fast link can be all of a large body.
final class WebhookSessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private let maxBodyBytes: Int
    private let exchanges = Mutex<[Int: SessionExchange]>([:])

    init(maxBodyBytes: Int) {
        self.maxBodyBytes = maxBodyBytes
    }

    /// Follows `task` from now until `end(task)`; call before `resume()`.
    func begin(_ task: URLSessionTask) -> SessionExchange {
        let exchange = SessionExchange(maxBodyBytes: maxBodyBytes)
        exchanges.withLock { $0[task.taskIdentifier] = exchange }
        return exchange
    }

    /// Stops following `task`: later callbacks for it (after a cancel) are ignored.
    func end(_ task: URLSessionTask) {
        _ = exchanges.withLock { $0.removeValue(forKey: task.taskIdentifier) }
    }

    private func exchange(for task: URLSessionTask) -> SessionExchange? {
        exchanges.withLock { $0[task.taskIdentifier] }
    }

    // MARK: - URLSessionDataDelegate

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        if let response = response as? HTTPURLResponse { exchange(for: dataTask)?.responded(WebhookAnswer(response)) }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        exchange(for: dataTask)?.received(data.count)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let exchange = exchange(for: task) else { return }
        if (error as? URLError)?.code == .timedOut {
            exchange.finish(.timedOut)
        } else if let error {
            exchange.finish(.failed("no answer: \(error.localizedDescription)"))
        } else if let response = task.response as? HTTPURLResponse {
            exchange.finish(.answered(WebhookAnswer(response)))
        } else {
            exchange.finish(.failed("the answer was not HTTP"))
        }
    }
}

/// One request in flight through a webhook session: what has come back, and how it ended.
final class SessionExchange: Sendable {
    /// How an exchange ended.
    enum End: Sendable, Equatable {
        /// A whole answer, or its head and the first `maxBodyBytes` of a longer body.
        case answered(WebhookAnswer)
        /// No answer within the session's own timeout, which the deadline normally comes before.
        case timedOut
        /// No answer, with the reason.
        case failed(String)
    }

    private struct State {
        var answer: WebhookAnswer?
        var bodyBytes = 0
        var end: End?
    }

    private let maxBodyBytes: Int
    private let state = Mutex(State())
    private let done = MonotonicSemaphore()

    fileprivate init(maxBodyBytes: Int) {
        self.maxBodyBytes = maxBodyBytes
    }

    /// How the exchange ended, waiting for it until `deadline`; nil when it had not ended by then.
    func wait(until deadline: DispatchTime) -> End? {
        guard done.wait(timeout: deadline) == .success else { return nil }
        return state.withLock { $0.end }
    }

    fileprivate func responded(_ answer: WebhookAnswer) {
        state.withLock { $0.answer = answer }
    }

    /// Counts body bytes; past `maxBodyBytes` the exchange is answered by the status already read.
    fileprivate func received(_ count: Int) {
        let answer = state.withLock { state -> WebhookAnswer? in
            state.bodyBytes = state.bodyBytes.addingReportingOverflow(count).overflow ? .max : state.bodyBytes + count
            return state.bodyBytes > maxBodyBytes ? state.answer : nil
        }
        if let answer { finish(.answered(answer)) }
    }

    /// Ends the exchange; the first end counts.
    fileprivate func finish(_ end: End) {
        let first = state.withLock { state -> Bool in
            guard state.end == nil else { return false }
            state.end = end
            return true
        }
        if first { done.signal() }
    }
}

extension WebhookAnswer {
    init(_ response: HTTPURLResponse) {
        self.init(status: response.statusCode, location: response.value(forHTTPHeaderField: "Location"))
    }
}
