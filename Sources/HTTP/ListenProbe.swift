#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension HTTPServer {
    /// Whether `host:port` can be bound now, found by binding it and letting it go, as the daemon
    /// will (address reuse on, IPv6 only for an IPv6 address). For a caller with work to do
    /// before listening that a refused address should not see done (a server migrating its
    /// database). Port 0 always can. Another process may still take the port in between: the
    /// start then fails as it would have.
    public static func probeListen(host: String, port: UInt16) throws(HTTPServerError) {
        guard port != 0 else { return }
        let endpoint = "\(host.contains(":") ? "[\(host)]" : host):\(port)"
        guard let address = SocketAddress(host: host, port: port) else {
            throw HTTPServerError(code: .invalidAddress, message: "\(host) is not an IPv4 or IPv6 address literal.")
        }
        let socket = Glibc.socket(
            address.isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { return }
        defer { close(socket) }
        var on: Int32 = 1
        _ = setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        if address.isIPv6 { _ = setsockopt(socket, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &on, socklen_t(MemoryLayout<Int32>.size)) }
        let length = socklen_t(address.isIPv6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        let bound = address.withSockAddr { bind(socket, $0, length) }
        guard bound == 0 else {
            let number = errno
            throw HTTPServerError(
                code: number == EADDRINUSE ? .addressInUse : .startFailed,
                message: "Could not listen on \(endpoint): \(String(cString: strerror(number)))")
        }
    }
}
