import Synchronization

/// Spaces calls to at most `requestsPerSecond` on average, with bursts of up to one second's
/// worth, at least one call (a token bucket); `EndpointRateLimits` keeps one per endpoint. Time
/// is passed in; the caller sleeps what it is told.
public final class RateLimiter: Sendable {
    public let requestsPerSecond: Double
    private let state: Mutex<(tokens: Double, at: Double)>

    /// `requestsPerSecond` of 0 or less means no limit.
    public init(requestsPerSecond: Double, now: Double) {
        self.requestsPerSecond = requestsPerSecond
        state = Mutex((tokens: max(requestsPerSecond, 1), at: now))
    }

    /// Takes one call's token at `now` (seconds on a monotonic clock); returns how long to wait
    /// before making the call (0 when it may go at once).
    public func reserve(now: Double) -> Double {
        guard requestsPerSecond > 0 else { return 0 }
        return state.withLock { bucket in
            let capacity = max(requestsPerSecond, 1)
            let refilled = min(capacity, bucket.tokens + max(0, now - bucket.at) * requestsPerSecond)
            bucket.tokens = refilled - 1
            bucket.at = max(now, bucket.at)
            return bucket.tokens >= 0 ? 0 : -bucket.tokens / requestsPerSecond
        }
    }
}
