import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A connected TCP socket with Nagle off and send/receive timeouts; the one place this module
/// makes socket system calls. Closes the descriptor on deinit.
final class LoopbackSocket: ByteStream {
    private var descriptor: Int32
    /// How long a send or receive without a `deadline` waits.
    let timeoutSeconds: Double
    /// When the exchange in progress must be over: while set, sends and receives never block
    /// past it (they wait in `poll` for what time is left, then fail with `.timedOut`), so a peer
    /// trickling one byte at a time cannot stretch the exchange. nil: each call waits at most the
    /// socket's timeout.
    var deadline: DispatchTime?

    /// Connects to `host` (a name, or an IPv4 or IPv6 literal) and `port`, trying its addresses
    /// in the resolver's order until one accepts. `timeoutSeconds` (positive) bounds the
    /// resolution and connect and, without a `deadline`, each send and receive; `connectBy`, when
    /// earlier, bounds the resolution and connect (all addresses together) instead.
    init(host: String, port: UInt16, timeoutSeconds: Double, connectBy: DispatchTime? = nil) throws(LoopbackClientError) {
        // `Int(_: Double)` traps on NaN, infinities and values past Int.max; a zero timeval
        // means no timeout at all.
        guard timeoutSeconds.isFinite, timeoutSeconds > 0 else {
            throw LoopbackClientError(code: .connectFailed, message: "The timeout \(timeoutSeconds) s is not positive.")
        }
        self.timeoutSeconds = timeoutSeconds
        let timeoutEnd = DispatchTime.now() + min(timeoutSeconds, 1e9)
        let deadline = connectBy.map { min($0, timeoutEnd) } ?? timeoutEnd
        var failures: [String] = []
        var lastErrno: Int32 = 0
        for address in try AddressResolver.addresses(of: host, port: port, by: deadline) {
            do {
                descriptor = try Self.connected(to: address, timeoutSeconds: timeoutSeconds, by: deadline)
                return
            } catch let refused where refused.code == .connectFailed {
                failures.append(refused.message)
                lastErrno = refused.errno
            }
        }
        throw LoopbackClientError(
            code: .connectFailed,
            message: failures.count == 1 ? failures[0] : "cannot connect to \(host): \(failures.joined(separator: "; "))",
            errno: lastErrno)
    }

    /// A socket connected to `address` by `deadline`, in blocking mode with Nagle off and
    /// `timeoutSeconds` as its send and receive timeouts.
    private static func connected(
        to address: AddressResolver.Address, timeoutSeconds: Double, by deadline: DispatchTime
    ) throws(LoopbackClientError) -> Int32 {
        #if canImport(Glibc)
            let descriptor = socket(
                address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        #else
            let descriptor = socket(address.family, SOCK_STREAM, 0)
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        #endif
        guard descriptor >= 0 else { throw failure(.connectFailed, "socket") }
        do throws(LoopbackClientError) {
            var one: Int32 = 1
            let microseconds = max(1, Int((min(timeoutSeconds, 1e9) * 1e6).rounded(.up)))
            var timeout = timeval(tv_sec: microseconds / 1_000_000, tv_usec: __suseconds_t(microseconds % 1_000_000))
            let timevalSize = socklen_t(MemoryLayout<timeval>.size)
            guard setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size)) == 0,
                setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, timevalSize) == 0,
                setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, timevalSize) == 0
            else { throw failure(.connectFailed, "setsockopt") }
            var storage = address.storage
            let connected = withUnsafeBytes(of: &storage) { bytes in
                connect(descriptor, bytes.baseAddress!.assumingMemoryBound(to: sockaddr.self), address.length)
            }
            if connected != 0 {
                guard errno == EINPROGRESS || errno == EINTR else { throw failure(.connectFailed, "connect to \(address)") }
                try waitUntilReady(descriptor, for: Int16(POLLOUT), by: deadline, doing: "connect to \(address)")
                var error: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else {
                    throw failure(.connectFailed, "getsockopt")
                }
                guard error == 0 else {
                    throw LoopbackClientError(
                        code: .connectFailed, message: "connect to \(address): \(String(cString: strerror(error)))", errno: error)
                }
            }
            // Back to blocking: without a deadline, sends and receives rely on the timeouts set above.
            guard fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK) == 0 else {
                throw failure(.connectFailed, "fcntl")
            }
            return descriptor
        } catch {
            _ = close(descriptor)
            throw error
        }
    }

    /// Takes ownership of a socket connected elsewhere (one end of a `socketpair` in tests).
    init(connected descriptor: Int32, timeoutSeconds: Double = 30) {
        self.descriptor = descriptor
        self.timeoutSeconds = timeoutSeconds
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
    func waitUntilReady(for events: Int16, by deadline: DispatchTime) throws(LoopbackClientError) {
        guard descriptor >= 0 else { throw LoopbackClientError(code: .notOpen, message: "The connection is closed.") }
        try Self.waitUntilReady(descriptor, for: events, by: deadline, doing: "The exchange")
    }

    private static func waitUntilReady(
        _ descriptor: Int32, for events: Int16, by deadline: DispatchTime, doing what: String
    ) throws(LoopbackClientError) {
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline.uptimeNanoseconds else {
                throw LoopbackClientError(code: .timedOut, message: "\(what) did not finish by its deadline.")
            }
            let milliseconds = Int32(clamping: (deadline.uptimeNanoseconds - now + 999_999) / 1_000_000)
            var entry = pollfd(fd: descriptor, events: events, revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return }
            if ready < 0, errno != EINTR { throw failure(events == POLLOUT ? .sendFailed : .receiveFailed, "poll") }
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

    private static func failure(_ code: LoopbackClientError.Code, _ call: String) -> LoopbackClientError {
        let number = errno
        return LoopbackClientError(code: code, message: "\(call): \(String(cString: strerror(number)))", errno: number)
    }
}
