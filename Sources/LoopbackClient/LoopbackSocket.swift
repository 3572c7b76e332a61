#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A connected TCP socket with Nagle off and send/receive timeouts; the one place this module
/// makes system calls. Closes the descriptor on deinit.
final class LoopbackSocket {
    private var descriptor: Int32

    /// Connects to `host` (an IPv4 or IPv6 literal, or "localhost") and `port`.
    init(host: String, port: UInt16, timeoutSeconds: Double) throws(LoopbackClientError) {
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
        var timeout = timeval(
            tv_sec: Int(timeoutSeconds), tv_usec: __suseconds_t((timeoutSeconds - timeoutSeconds.rounded(.down)) * 1e6))
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
            let written = send(descriptor, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            if written < 0 {
                if errno == EINTR { continue }
                throw Self.failure(errno == EAGAIN || errno == EWOULDBLOCK ? .timedOut : .sendFailed, "send")
            }
            offset += written
        }
    }

    /// Reads at most `count` bytes into `buffer`; 0 means the peer closed the connection.
    func receive(into buffer: UnsafeMutableRawPointer, count: Int) throws(LoopbackClientError) -> Int {
        guard descriptor >= 0 else { throw LoopbackClientError(code: .notOpen, message: "The connection is closed.") }
        while true {
            let read = recv(descriptor, buffer, count, 0)
            if read >= 0 { return read }
            if errno == EINTR { continue }
            throw Self.failure(errno == EAGAIN || errno == EWOULDBLOCK ? .timedOut : .receiveFailed, "recv")
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
