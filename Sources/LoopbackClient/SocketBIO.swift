import COpenSSL

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An OpenSSL BIO over a socket descriptor that never blocks and never raises SIGPIPE: OpenSSL's
/// own socket BIO writes with `write(2)`, which raises SIGPIPE (killing a process that has not
/// ignored it) when the peer has gone. This one sends with `MSG_NOSIGNAL | MSG_DONTWAIT` and
/// receives with `MSG_DONTWAIT`, reporting "try again" to `TLSStream`, which polls for the time
/// its deadline leaves.
///
/// The BIO does not own the descriptor; the `LoopbackSocket` under the `TLSStream` does.
enum SocketBIO {
    /// A new BIO over `descriptor`, or nil when OpenSSL cannot allocate one.
    static func make(descriptor: Int32) -> OpaquePointer? {
        guard let method = socketBIOMethod, let bio = BIO_new(method) else { return nil }
        // The descriptor travels in the BIO's data pointer, off by one so that descriptor 0 is
        // not a null pointer.
        BIO_set_data(bio, UnsafeMutableRawPointer(bitPattern: Int(descriptor) + 1))
        BIO_set_init(bio, 1)
        return bio
    }

    fileprivate static func descriptor(_ bio: OpaquePointer?) -> Int32 {
        Int32(truncatingIfNeeded: Int(bitPattern: BIO_get_data(bio)) - 1)
    }
}

/// The method table, made once and never freed (OpenSSL keeps using it for every BIO made from it).
/// `nonisolated(unsafe)`: written once by the lazy global initialiser, only read after.
nonisolated(unsafe) private let socketBIOMethod: OpaquePointer? = {
    guard let method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "RevenueDot socket") else { return nil }
    BIO_meth_set_write(method) { bio, data, length in
        COpenSSL_BIO_clear_retry_flags(bio)
        let written = send(SocketBIO.descriptor(bio), data, Int(length), Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
        if written < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { COpenSSL_BIO_set_retry_write(bio) }
        return Int32(written)
    }
    BIO_meth_set_read(method) { bio, data, length in
        COpenSSL_BIO_clear_retry_flags(bio)
        let read = recv(SocketBIO.descriptor(bio), data, Int(length), Int32(MSG_DONTWAIT))
        if read < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { COpenSSL_BIO_set_retry_read(bio) }
        return Int32(read)
    }
    BIO_meth_set_ctrl(method) { _, command, _, _ in
        command == BIO_CTRL_FLUSH ? 1 : 0  // nothing is buffered; every other control is unsupported
    }
    return method
}()
