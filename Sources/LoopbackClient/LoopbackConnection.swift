import Foundation

/// One blocking HTTP/1.1 keep-alive connection, plain or over TLS, to any host: for webhooks,
/// tests and benchmarks.
///
/// Not `Sendable`: use one per thread. Requests go out one at a time, each waiting for its
/// whole response; the connection stays open between them unless the server closes it.
public final class LoopbackConnection {
    private let stream: any ByteStream
    private let reader: ResponseReader
    private let hostHeader: String

    /// Connects to `host` (a name, or an IPv4 or IPv6 literal) on `port`, over TLS when `tls` is
    /// given (the server's certificate must name `host`). The resolution, connect and handshake,
    /// and sends and receives without a deadline, that wait longer than `timeoutSeconds`
    /// (positive) fail with `.timedOut`; `deadline`, when given, bounds the resolution, connect
    /// and handshake together.
    public init(
        host: String = "127.0.0.1", port: UInt16, timeoutSeconds: Double = 30, tls: TLSClientContext? = nil,
        deadline: DispatchTime? = nil
    ) throws {
        let socket = try LoopbackSocket(host: host, port: port, timeoutSeconds: timeoutSeconds, connectBy: deadline)
        if let tls {
            let timeoutEnd = DispatchTime.now() + min(timeoutSeconds, 1e9)
            stream = try TLSStream(
                socket: socket, context: tls, serverName: host, handshakeBy: deadline.map { min($0, timeoutEnd) } ?? timeoutEnd)
        } else {
            stream = socket
        }
        reader = ResponseReader(stream: stream)
        hostHeader = Self.hostHeader(host: host, port: port)
    }

    /// Sends one request and reads its whole response (`Content-Length`, chunked, or up to close).
    ///
    /// `Host` and `Content-Length` are added unless given in `headers`; a caller that sets
    /// `Transfer-Encoding` sends `body` already encoded. When the server answers early and closes
    /// (a 413 before the body is read), writing the rest fails and the early answer is returned.
    /// `limits` bound the whole exchange for a server that is not trusted to be quick or brief.
    public func request(
        _ method: String, _ path: String, headers: [String: String] = [:], body: Data = Data(),
        limits: ExchangeLimits = .none
    ) throws -> LoopbackResponse {
        try send(prepared: encoded(method, path, headers: headers, body: body), bodyless: method == "HEAD", limits: limits)
    }

    /// The bytes `request(method, path, headers:, body:)` sends on this connection, for callers
    /// that prepare requests ahead (a load generator whose own work should not be timed).
    public func encoded(_ method: String, _ path: String, headers: [String: String] = [:], body: Data = Data()) -> Data {
        Self.encoded(method, path, hostHeader: hostHeader, headers: headers, body: body)
    }

    /// The bytes `request(method, path, headers:, body:)` sends on any connection to `host` and
    /// `port`, for a load generator that prepares requests before it knows which connection sends each.
    public static func encoded(
        _ method: String, _ path: String, host: String = "127.0.0.1", port: UInt16, headers: [String: String] = [:],
        body: Data = Data()
    ) -> Data {
        encoded(method, path, hostHeader: hostHeader(host: host, port: port), headers: headers, body: body)
    }

    private static func hostHeader(host: String, port: UInt16) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    private static func encoded(
        _ method: String, _ path: String, hostHeader: String, headers: [String: String], body: Data
    ) -> Data {
        var head = "\(method) \(path) HTTP/1.1\r\n"
        var hasHost = false
        var framed = false
        for (name, value) in headers {
            head += "\(name): \(value)\r\n"
            switch name.lowercased() {
            case "host": hasHost = true
            case "content-length", "transfer-encoding": framed = true
            default: break
            }
        }
        if !hasHost {
            head += "Host: \(hostHeader)\r\n"
        }
        if !framed && (!body.isEmpty || ["POST", "PUT", "PATCH"].contains(method)) {
            head += "Content-Length: \(body.count)\r\n"
        }
        head += "\r\n"
        var bytes = Data(head.utf8)
        bytes.append(body)
        return bytes
    }

    /// Sends a request made by `encoded` and reads its response, as `request` does (an early
    /// answer is returned when the server closed before taking the whole request).
    public func send(
        prepared bytes: Data, bodyless: Bool = false, limits: ExchangeLimits = .none
    ) throws -> LoopbackResponse {
        stream.deadline = limits.deadline
        defer { stream.deadline = nil }
        do {
            try sendRaw(bytes)
        } catch let error as LoopbackClientError where error.code == .sendFailed {
            guard let early = try? readResponse(bodyless: bodyless, limits: limits) else { throw error }
            return early
        } catch {
            if limits.deadline != nil { stream.disconnect() }
            throw error
        }
        return try readResponse(bodyless: bodyless, limits: limits)
    }

    /// Writes `bytes` as they are: for requests written by hand, such as one that stops half-way.
    public func sendRaw(_ bytes: Data) throws {
        try bytes.withUnsafeBytes { raw in try stream.sendAll(raw) }
    }

    /// Reads the next response, for a request written with `sendRaw`. `bodyless` is for HEAD.
    ///
    /// A failure closes the connection, except a receive timeout without a deadline: the response
    /// may still come, and a caller may read again.
    public func readResponse(bodyless: Bool = false, limits: ExchangeLimits = .none) throws -> LoopbackResponse {
        stream.deadline = limits.deadline
        defer { stream.deadline = nil }
        do {
            let (response, closes) = try reader.readResponse(bodyless: bodyless, maxBodyBytes: limits.maxBodyBytes)
            if closes {
                stream.disconnect()
            }
            return response
        } catch {
            if error.code != .timedOut || stream.deadline != nil {
                stream.disconnect()
            }
            throw error
        }
    }

    /// The socket's descriptor (-1 once closed), for a caller that polls many connections from
    /// one thread: after `sendRaw`, the connection is readable once its response begins.
    public var fileDescriptor: Int32 { stream.fileDescriptor }

    /// Closes the connection; further requests fail with `.notOpen`.
    public func close() {
        stream.disconnect()
    }

    /// Whether the connection is usable: false after `close()`, after a response that closed it,
    /// and once the server has closed its side (checked without blocking).
    public var isOpen: Bool {
        if !stream.isClosed, stream.peerClosed {
            stream.disconnect()
        }
        return !stream.isClosed
    }
}
