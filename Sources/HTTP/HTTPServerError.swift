/// Why the server could not start.
public struct HTTPServerError: Error, CustomStringConvertible {
    /// The stable kind of failure.
    public enum Code: String, Sendable {
        /// A configuration value is out of range.
        case invalidConfiguration
        /// The host is not an IPv4 or IPv6 literal.
        case invalidAddress
        /// libmicrohttpd refused to start, for example because the address is in use.
        case startFailed
        /// Another socket holds the address (`probeListen`'s `EADDRINUSE`).
        case addressInUse
        /// `start()` was called on a server that is running or was shut down.
        case invalidState
    }

    /// The kind of failure.
    public var code: Code
    /// What went wrong, including libmicrohttpd's own message when it gave one.
    public var message: String

    /// Creates an error.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "HTTPServerError.\(code.rawValue): \(message)" }
}
