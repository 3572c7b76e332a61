import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A connected TCP socket with Nagle off and send/receive timeouts; the one place this module
/// makes system calls. Closes the descriptor on deinit.
final class LoopbackSocket {
    private var descriptor: Int32
    /// When the exchange in progress must be over: while set, sends and receives never block
    /// past it (they wait in `poll` for what time is left, then fail with `.timedOut`), so a peer
    /// trickling one byte at a time cannot stretch the exchange. nil: each call waits at most the
    /// socket's timeout.
    var deadline: DispatchTime?

    /// Connects to `host` (an IPv4 or IPv6 literal, or "localhost") and `port`. `timeoutSeconds`
    /// (positive) bounds the connect and, without a `deadline`, each send and receive.
    init(host: String, port: UInt16, timeoutSeconds: Double) throws(LoopbackClientError) {
        // `Int(_: Double)` traps on NaN, infinities and values past Int.max; a zero timeval
        // means no timeout at all.
        guard timeoutSeconds.isFinite, timeoutSeconds > 0 else {
            throw LoopbackClientError(code: .connectFailed, message: "The timeout \(timeoutSeconds) s is not positive.")
        }
        let literal = host == "localhost" ? "127.0.0.1" : host
        var storage = sockaddr_storage()
        let family: Int32
        let length: socklen_t
        if literal.contains(":") {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            guard inet_pton(AF_INET6, literal, &address.sin6_addr) == 1 else { throw Self.badHost(host) }
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in6.self) }
            (family, length) = (AF_INET6, socklen_t(MemoryLayout<sockaddr_in6>.size))
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            guard inet_pton(AF_INET, literal, &address.sin_addr) == 1 else { throw Self.badHost(host) }
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in.self) }
            (family, length) = (AF_INET, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
        #if canImport(Glibc)
            descriptor = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #else
            descriptor = socket(family, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw Self.failure(.connectFailed, "socket") }
        var one: Int32 = 1
        let microseconds = max(1, Int((min(timeoutSeconds, 1e9) * 1e6).rounded(.up)))
        var timeout = timeval(tv_sec: microseconds / 1_000_000, tv_usec: __suseconds_t(microseconds % 1_000_000))
        let timevalSize = socklen_t(MemoryLayout<timeval>.size)
        guard setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size)) == 0,
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, timevalSize) == 0,
            setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, timevalSize) == 0
        else {
            let error = Self.failure(.connectFailed, "setsockopt")
            disconnect()
            throw error
        }
        let connected = withUnsafeBytes(of: &storage) { bytes in
            connect(descriptor, bytes.baseAddress!.assumingMemoryBound(to: sockaddr.self), length)
        }
        guard connected == 0 else {
            let error = Self.failure(.connectFailed, "connect to \(host):\(port)")
            disconnect()
            throw error
        }
    }

    /// Takes ownership of a socket connected elsewhere (one end of a `socketpair` in tests).
    init(connected descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        disconnect()
    }

    var isClosed: Bool { descriptor < 0 }

    /// The socket's descriptor, for `poll`; -1 once closed.
    var fileDescriptor: Int32 { descriptor }

    /// Writes all of `bytes`, retrying short writes. Never raises SIGPIPE.
    func sendAll(_ bytes: UnsafeRawBufferPointer) throws(LoopbackClientError) {
        var offset = 0
        while offset < bytes.count {
            guard descriptor >= 0 else { throw LoopbackClientError(code: .notOpen, message: "The connection is closed.") }
            let flags = Int32(MSG_NOSIGNAL) | (deadline == nil ? 0 : Int32(MSG_DONTWAIT))
            let written = send(descriptor, bytes.baseAddress! + offset, bytes.count - offset, flags)
            if written < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK, let deadline {
                    try waitUntilReady(for: Int16(POLLOUT), by: deadline)
                    continue
                }
                throw Self.failure(errno == EAGAIN || errno == EWOULDBLOCK ? .timedOut : .sendFailed, "send")
            }
            offset += written
        }
    }

    /// Reads at most `count` bytes into `buffer`; 0 means the peer closed the connection.
    func receive(into buffer: UnsafeMutableRawPointer, count: Int) throws(LoopbackClientError) -> Int {
        guard descriptor >= 0 else { throw LoopbackClientError(code: .notOpen, message: "The connection is closed.") }
        while true {
            if let deadline { try waitUntilReady(for: Int16(POLLIN), by: deadline) }
            let read = recv(descriptor, buffer, count, deadline == nil ? 0 : Int32(MSG_DONTWAIT))
            if read >= 0 { return read }
            if errno == EINTR || (deadline != nil && (errno == EAGAIN || errno == EWOULDBLOCK)) { continue }
            throw Self.failure(errno == EAGAIN || errno == EWOULDBLOCK ? .timedOut : .receiveFailed, "recv")
        }
    }

    /// Waits until the socket is ready for `events` (or has an error or hang-up for the next call
    /// to report), failing with `.timedOut` once `deadline` has passed.
    private func waitUntilReady(for events: Int16, by deadline: DispatchTime) throws(LoopbackClientError) {
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline.uptimeNanoseconds else {
                throw LoopbackClientError(code: .timedOut, message: "The exchange did not finish by its deadline.")
            }
            let milliseconds = Int32(clamping: (deadline.uptimeNanoseconds - now + 999_999) / 1_000_000)
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return }
            if ready < 0, errno != EINTR { throw Self.failure(events == POLLOUT ? .sendFailed : .receiveFailed, "poll") }
        }
    }

    /// Whether the peer has closed its side (or reset), checked without blocking or consuming data.
    var peerClosed: Bool {
        guard descriptor >= 0 else { return true }
        var byte: UInt8 = 0
        let read = recv(descriptor, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
        if read == 0 { return true }
        return read < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR
    }

    func disconnect() {
        guard descriptor >= 0 else { return }
        _ = close(descriptor)
        descriptor = -1
    }

    private static func badHost(_ host: String) -> LoopbackClientError {
        LoopbackClientError(code: .connectFailed, message: "\(host) is not an IPv4 or IPv6 address literal.")
    }

    private static func failure(_ code: LoopbackClientError.Code, _ call: String) -> LoopbackClientError {
        let number = errno
        return LoopbackClientError(code: code, message: "\(call): \(String(cString: strerror(number)))", errno: number)
    }
}
