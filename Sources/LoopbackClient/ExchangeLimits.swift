import Dispatch

/// How long one request-and-response exchange may take and how much of the response body is
/// read, for a peer that is not trusted to be quick or brief.
public struct ExchangeLimits: Sendable {
    /// When the whole exchange (writing the request, reading the response head and body) must be
    /// over, however steadily the peer trickles bytes; past it the exchange fails with
    /// `.timedOut` and the connection is closed. nil: each send and receive waits at most the
    /// connection's `timeoutSeconds`, with no bound on the whole.
    public var deadline: DispatchTime?
    /// The most body bytes read. A longer body is cut there: the response comes back with its
    /// first `maxBodyBytes` bytes and `isTruncated`, the rest is never read, and the connection
    /// is closed.
    public var maxBodyBytes: Int

    /// Creates limits.
    public init(deadline: DispatchTime? = nil, maxBodyBytes: Int = .max) {
        self.deadline = deadline
        self.maxBodyBytes = max(0, maxBodyBytes)
    }

    /// No deadline and no body limit: for tests and benchmarks talking to our own server.
    public static let none = ExchangeLimits()
}
