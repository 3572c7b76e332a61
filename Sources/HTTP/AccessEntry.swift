/// One request as answered, for an access log (`HTTPServerConfiguration.accessLog`).
public struct AccessEntry: Sendable, Equatable {
    public var method: String
    /// The path as sent, without its query string (which may carry what a log must not keep).
    public var path: String
    public var status: Int
    /// The response body's size.
    public var bytes: Int
    /// From the request's arrival to its answer being queued.
    public var seconds: Double
    /// The client's address (the proxy's, behind one), numeric; "-" when unknown.
    public var remoteAddress: String
    /// The `X-Forwarded-For` header as the client sent it, when it sent one.
    public var forwardedFor: String?
    /// Why the answer was never sent, when it was not: `connection_lost` (the client closed or
    /// broke its connection), `timed_out` (silent past the idle timeout, or cut off at the
    /// header or request deadline), or `shutdown` (the server stopped first). `status`
    /// is then the answer that was made (0 if none was), and `bytes` is 0.
    public var unsent: String? = nil
}

extension AccessEntry {
    /// The most characters of the method, path or `X-Forwarded-For` an access line keeps: a
    /// client may send a head as large as libmicrohttpd's 32 KiB buffer, and each request would
    /// then write that much to the log.
    public static let keptCharacters = 1024

    /// `text` cut to `keptCharacters`, marked with "…" where it was cut.
    static func cut(_ text: String) -> String {
        text.count > keptCharacters ? String(text.prefix(keptCharacters)) + "…" : text
    }
}
