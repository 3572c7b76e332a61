/// Why a request failed.
public struct LoopbackClientError: Error, CustomStringConvertible {
    /// The stable kind of failure.
    public enum Code: String, Sendable {
        /// The host name has no address the system resolver knows.
        case resolveFailed
        /// The socket could not be created or connected, at any of the host's addresses.
        case connectFailed
        /// The TLS handshake failed: the server's certificate was refused (untrusted, expired, or
        /// not for the host), no protocol version or cipher both sides accept, or the server left.
        case tlsFailed
        /// Writing the request failed, usually because the server closed the connection.
        case sendFailed
        /// Reading the response failed.
        case receiveFailed
        /// No data arrived within the connection's timeout.
        case timedOut
        /// The server closed the connection before any of a response arrived (a keep-alive
        /// connection the server had already given up: the request may safely go again).
        case closedBeforeResponse
        /// The server closed the connection before a whole response arrived.
        case closed
        /// The response is not HTTP/1.x as this client reads it.
        case malformedResponse
        /// The connection was already closed.
        case notOpen
    }

    /// The kind of failure.
    public var code: Code
    /// What went wrong, with the `errno` text when a system call failed and OpenSSL's error
    /// text when TLS did.
    public var message: String
    /// The `errno` of the failed system call (of the last address tried, for `.connectFailed`),
    /// or 0.
    public var errno: Int32

    /// Creates an error.
    public init(code: Code, message: String, errno: Int32 = 0) {
        self.code = code
        self.message = message
        self.errno = errno
    }

    /// The message alone: what failed, in words (`code` is for programs).
    public var description: String { message }
}
