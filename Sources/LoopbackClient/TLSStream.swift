import COpenSSL
import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// TLS over a connected `LoopbackSocket`: one OpenSSL `SSL`, freed on deinit or `disconnect()`.
///
/// The handshake, and every read and write after it, runs on a non-blocking BIO (`SocketBIO`):
/// when OpenSSL wants the socket readable or writable, the stream waits in `poll` for what time
/// is left before the deadline (or, without one, for the socket's `timeoutSeconds`), so a server
/// that stalls mid-handshake or trickles records cannot hold the caller past it.
final class TLSStream: ByteStream {
    private let socket: LoopbackSocket
    private var ssl: OpaquePointer?

    var deadline: DispatchTime? {
        get { socket.deadline }
        set { socket.deadline = newValue }
    }

    /// Runs the handshake with the server at the other end of `socket` by `handshakeBy`, checking
    /// that its certificate chains to a root `context` trusts and names `serverName` (a DNS
    /// name, sent as SNI too, or an IP literal matched against the certificate's IP addresses).
    /// Fails with `.tlsFailed` (OpenSSL's reason, and the certificate check's when that failed)
    /// or `.timedOut`; the socket is closed then.
    init(socket: LoopbackSocket, context: TLSClientContext, serverName: String, handshakeBy: DispatchTime)
        throws(LoopbackClientError)
    {
        self.socket = socket
        ERR_clear_error()
        guard let ssl = SSL_new(context.handle) else { throw TLSFailure.error("SSL_new") }
        self.ssl = ssl
        guard let bio = SocketBIO.make(descriptor: socket.fileDescriptor) else { throw TLSFailure.error("BIO_new") }
        SSL_set_bio(ssl, bio, bio)
        SSL_set_hostflags(ssl, UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS))
        if AddressResolver.isAddressLiteral(serverName) {
            // SNI carries host names only (RFC 6066 §3); an address is checked against iPAddress SANs.
            guard X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), serverName) == 1 else {
                throw TLSFailure.error("Cannot check certificates for \(serverName)")
            }
        } else {
            guard SSL_set1_host(ssl, serverName) == 1, COpenSSL_SSL_set_tlsext_host_name(ssl, serverName) == 1 else {
                throw TLSFailure.error("Cannot check certificates for \(serverName)")
            }
        }
        do throws(LoopbackClientError) {
            guard try perform(by: handshakeBy, { SSL_connect($0) }) > 0 else {
                throw LoopbackClientError(code: .tlsFailed, message: "The server closed the connection during the TLS handshake.")
            }
        } catch {
            disconnect()
            throw error.code == .timedOut
                ? LoopbackClientError(code: .timedOut, message: "The TLS handshake did not finish by its deadline.")
                : error
        }
    }

    deinit {
        SSL_free(ssl)
    }

    func sendAll(_ bytes: UnsafeRawBufferPointer) throws(LoopbackClientError) {
        var offset = 0
        while offset < bytes.count {
            // Without partial writes, SSL_write takes a whole piece or asks to be called again
            // with the same one.
            let piece = Int32(min(bytes.count - offset, 1 << 20))
            offset += Int(try perform(by: deadline, code: .sendFailed) { SSL_write($0, bytes.baseAddress! + offset, piece) })
        }
    }

    func receive(into buffer: UnsafeMutableRawPointer, count: Int) throws(LoopbackClientError) -> Int {
        let wanted = Int32(clamping: count)
        return Int(try perform(by: deadline, code: .receiveFailed) { SSL_read($0, buffer, wanted) })
    }

    var peerClosed: Bool { ssl == nil || socket.peerClosed }

    var isClosed: Bool { ssl == nil || socket.isClosed }

    var fileDescriptor: Int32 { ssl == nil ? -1 : socket.fileDescriptor }

    func disconnect() {
        SSL_free(ssl)
        ssl = nil
        socket.disconnect()
    }

    // MARK: - Driving OpenSSL

    /// Calls `operation` until it succeeds (its result, positive) or the peer closed the TLS
    /// stream (0), waiting in `poll` whenever OpenSSL wants the socket readable or writable.
    /// Without `deadline`, each wait lasts at most the socket's `timeoutSeconds`.
    private func perform(
        by deadline: DispatchTime?, code: LoopbackClientError.Code = .tlsFailed, _ operation: (OpaquePointer) -> Int32
    ) throws(LoopbackClientError) -> Int32 {
        while true {
            guard let ssl else { throw LoopbackClientError(code: .notOpen, message: "The connection is closed.") }
            ERR_clear_error()
            errno = 0
            let result = operation(ssl)
            let number = errno
            if result > 0 { return result }
            let reason = SSL_get_error(ssl, result)
            let waitBy = deadline ?? DispatchTime.now() + socket.timeoutSeconds
            switch reason {
            case SSL_ERROR_WANT_READ: try socket.waitUntilReady(for: Int16(POLLIN), by: waitBy)
            case SSL_ERROR_WANT_WRITE: try socket.waitUntilReady(for: Int16(POLLOUT), by: waitBy)
            case SSL_ERROR_ZERO_RETURN: return 0
            case SSL_ERROR_SYSCALL where ERR_peek_error() == 0 && number == 0:
                // The peer closed the TCP connection without TLS's close_notify: the stream ended,
                // as `TLSClientContext` says.
                return 0
            case SSL_ERROR_SYSCALL where ERR_peek_error() == 0:
                throw LoopbackClientError(code: code, message: "TLS: \(String(cString: strerror(number)))", errno: number)
            default:
                var what = code == .tlsFailed ? "TLS handshake failed" : "TLS failed"
                let verified = SSL_get_verify_result(ssl)
                if verified != X509_V_OK {
                    what += " (certificate refused: \(String(cString: X509_verify_cert_error_string(verified))))"
                }
                throw TLSFailure.error(what, code: code)
            }
        }
    }
}
