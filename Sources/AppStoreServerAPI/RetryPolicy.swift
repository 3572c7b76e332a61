/// When to try an App Store Server API call again, and after how long: a decision, no I/O.
///
/// Retried: no answer (a connection or timeout failure), any 5xx, 429, and an error Apple marks
/// retryable (`APIErrorCode.isRetryable`). The delay doubles from `baseDelaySeconds` with jitter
/// between half and the whole of it, so clients that failed together do not retry together; a
/// 429's `Retry-After` makes it longer, never shorter, and one past `maximumDelaySeconds` is not
/// waited for: the call fails, to be tried again later (a backfill's next run). A 429 without
/// `Retry-After` waits between half and the whole of `maximumDelaySeconds`: Apple counts its
/// limits over an hour, so a retry within seconds would only be refused again.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included.
    public var maxAttempts: Int
    public var baseDelaySeconds: Double
    public var maximumDelaySeconds: Double

    public init(maxAttempts: Int = 5, baseDelaySeconds: Double = 0.5, maximumDelaySeconds: Double = 30) {
        self.maxAttempts = maxAttempts
        self.baseDelaySeconds = baseDelaySeconds
        self.maximumDelaySeconds = maximumDelaySeconds
    }

    /// What became of one attempt, as far as retrying goes.
    public enum Attempt: Sendable, Equatable {
        /// No answer: the connection failed or the deadline passed.
        case noAnswer
        /// An HTTP answer that is not a success, with Apple's error code and `Retry-After` if any.
        case failed(status: Int, code: APIErrorCode?, retryAfterSeconds: Double?)
    }

    public enum Decision: Sendable, Equatable {
        case retry(afterSeconds: Double)
        case giveUp
    }

    /// Whether `attempt` (1 for the first) is worth repeating; `jitter` is in [0, 1).
    public func decide(after attempt: Int, _ outcome: Attempt, jitter: Double) -> Decision {
        guard attempt < maxAttempts, isRetryable(outcome) else { return .giveUp }
        let exponent = Double(1 << min(attempt - 1, 20))
        let ceiling = min(maximumDelaySeconds, baseDelaySeconds * exponent)
        let backoff = ceiling * spread(jitter)
        if case .failed(429, _, let retryAfter) = outcome {
            guard let retryAfter else { return .retry(afterSeconds: maximumDelaySeconds * spread(jitter)) }
            guard retryAfter <= maximumDelaySeconds else { return .giveUp }
            return .retry(afterSeconds: max(retryAfter, backoff))
        }
        return .retry(afterSeconds: backoff)
    }

    /// Between half and the whole of a delay, by `jitter`.
    private func spread(_ jitter: Double) -> Double { 0.5 + 0.5 * min(max(jitter, 0), 1) }

    public func isRetryable(_ outcome: Attempt) -> Bool {
        switch outcome {
        case .noAnswer: true
        case .failed(let status, let code, _): status == 429 || status >= 500 || (code?.isRetryable ?? false)
        }
    }
}
