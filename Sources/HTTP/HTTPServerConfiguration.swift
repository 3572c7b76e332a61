/// Where the server listens and the limits that keep slow or greedy clients from hurting others.
public struct HTTPServerConfiguration: Sendable {
    /// The address to bind: an IPv4 literal, `0.0.0.0` for all IPv4 interfaces, or `::`/`::1` for IPv6.
    public var host: String = "127.0.0.1"
    /// The TCP port; 0 asks the kernel for an ephemeral one, which `HTTPServer.start()` returns.
    public var port: UInt16 = 8080
    /// Worker threads. Each runs its own event loop over its connections and runs handlers,
    /// so this is also how many handlers can block at once.
    public var threads: Int = 16
    /// The largest request body accepted. A larger declared `Content-Length` (any number of
    /// digits) is answered 413 before any of the body is read, and a chunked body is cut off
    /// once it grows past it.
    public var maxBodyBytes: Int = 1 << 20
    /// The most memory all requests together may hold in bodies being received or handled; at
    /// least `maxBodyBytes`. A request takes its share piece by piece as its body arrives
    /// (never from the length its head declares: clients declaring large bodies and sending
    /// none hold nothing), and gives it back when it ends in any way (answered, refused,
    /// aborted, timed out, its connection closed). A body that no longer fits is read to its end,
    /// dropped, and answered 503 with `Retry-After: 1`.
    ///
    /// Without it, clients that each send most of a large body and stop hold that much memory
    /// apiece until a timeout, up to `connectionLimit` times `maxBodyBytes`. 64 MiB holds 64
    /// bodies of the largest size, or over 4,000 App Store notifications (about 14 KiB each),
    /// more than the connection limit lets in at once, so ordinary traffic never meets it.
    public var maxBufferedBodyBytes: Int = 64 << 20
    /// A connection with no traffic for this long (idle keep-alive, or a client stalled
    /// mid-request) is closed.
    public var connectionTimeoutSeconds: Int = 10
    /// A connection must send a request's whole head (request line and headers) within this
    /// long of being opened or of its previous answer, however steadily it trickles bytes; a
    /// late one is cut off (`RequestDeadlines`). It bounds what a slow client costs more tightly
    /// than `requestTimeoutSeconds`, which must leave time for a body too. 0 turns it off.
    public var headerTimeoutSeconds: Int = 10
    /// A connection must send a whole request (headers and body) within this long of being
    /// opened or of its previous answer, however steadily it trickles bytes; a late one is cut
    /// off (`RequestDeadlines`). 0 turns the deadline off.
    public var requestTimeoutSeconds: Int = 30
    /// A deferred handler (a notification waiting for its commit) that has not answered this
    /// long after it began has its request answered 503 for it, retryable, and its connection
    /// back (`ServerCore.expireDeferred`); the handler's answer, if it comes, is dropped. Checked
    /// with the header and request deadlines, so 0 for this, or for both of them, turns it off.
    public var handlerTimeoutSeconds: Int = 60
    /// Connections beyond this many are refused at accept.
    public var connectionLimit: Int = 4096
    /// Connections from one IP address beyond this many at once are closed as soon as they are
    /// accepted, before anything is read from them; 0 turns the limit off. IPv6 addresses count
    /// whole (an IPv4 client of an IPv6 listener counts as its mapped address).
    ///
    /// Off by default: behind a TLS terminator or a load balancer, which Apple's HTTPS
    /// notifications need in front, every client comes from the terminator's one address, and a
    /// limit here would cap all clients together; that is the place for per-client limits. Set
    /// it when clients connect directly. A client holding a whole IPv6 /64 has many addresses.
    public var connectionsPerIP: Int = 0
    /// Receives libmicrohttpd's own error messages while the server runs (start-up failures
    /// are thrown instead). Nil drops them.
    public var errorLog: (@Sendable (String) -> Void)? = nil
    /// Receives every request answered, once its answer is queued (on the worker thread that
    /// answered it, so it must be quick). Nil for none, which spares the work of making entries.
    public var accessLog: (@Sendable (AccessEntry) -> Void)? = nil

    /// Creates a configuration; every value has a production default.
    public init(
        host: String = "127.0.0.1", port: UInt16 = 8080, threads: Int = 16, maxBodyBytes: Int = 1 << 20,
        maxBufferedBodyBytes: Int = 64 << 20, connectionTimeoutSeconds: Int = 10, headerTimeoutSeconds: Int = 10,
        requestTimeoutSeconds: Int = 30, handlerTimeoutSeconds: Int = 60, connectionLimit: Int = 4096,
        connectionsPerIP: Int = 0, errorLog: (@Sendable (String) -> Void)? = nil
    ) {
        self.host = host
        self.port = port
        self.threads = threads
        self.maxBodyBytes = maxBodyBytes
        self.maxBufferedBodyBytes = maxBufferedBodyBytes
        self.connectionTimeoutSeconds = connectionTimeoutSeconds
        self.headerTimeoutSeconds = headerTimeoutSeconds
        self.requestTimeoutSeconds = requestTimeoutSeconds
        self.handlerTimeoutSeconds = handlerTimeoutSeconds
        self.connectionLimit = connectionLimit
        self.connectionsPerIP = connectionsPerIP
        self.errorLog = errorLog
    }
}
