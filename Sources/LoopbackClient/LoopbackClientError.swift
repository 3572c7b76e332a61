/// Why a loopback request failed.
public struct LoopbackClientError: Error, CustomStringConvertible {
    /// The stable kind of failure.
    public enum Code: String, Sendable {
        /// The host is not an address literal, or the socket could not be created or connected.
        case connectFailed
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
    /// What went wrong, with the `errno` text when a system call failed.
    public var message: String
    /// The `errno` of the failed system call, or 0.
    public var errno: Int32

    /// Creates an error.
    public init(code: Code, message: String, errno: Int32 = 0) {
        self.code = code
        self.message = message
        self.errno = errno
    }

    public var description: String { "LoopbackClientError.\(code.rawValue): \(message)" }
}
