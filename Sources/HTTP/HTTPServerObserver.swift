/// Receives the server's events, for metrics. Called on worker threads, so it must be cheap
/// and thread-safe.
public protocol HTTPServerObserver: Sendable {
    /// A request was answered. `route` is the matched pattern, or "unmatched" when no route
    /// matched; `seconds` runs from the request headers' arrival to the response being ready.
    func requestFinished(method: String, route: String, status: Int, seconds: Double)
    /// A request was answered by the server itself, before any handler saw it (a body over the
    /// limit or with no room in the body budget, or a head it refuses: `RequestFraming`);
    /// `requestFinished` follows. `parameters` are the matched route's (none when unmatched).
    func requestRefused(method: String, route: String, parameters: [String: String], status: Int)
    /// A client connection was accepted.
    func connectionOpened()
    /// A client connection was closed, by either side or by a timeout.
    func connectionClosed()
    /// A connection was cut off: it did not send a request's headers or a whole request in time
    /// (`RequestDeadlines`), or its chunked body went on far past the limit; `connectionClosed()`
    /// follows.
    func connectionCutOff()
}

extension HTTPServerObserver {
    public func connectionCutOff() {}
    public func requestRefused(method: String, route: String, parameters: [String: String], status: Int) {}
}
