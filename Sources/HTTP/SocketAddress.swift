#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A bind address parsed from an IPv4 or IPv6 literal, in the `sockaddr` form the daemon takes.
struct SocketAddress {
    private var storage = sockaddr_storage()
    /// Whether this is an IPv6 address, which the daemon must be told with `MHD_USE_IPv6`.
    let isIPv6: Bool

    /// Parses `host`; nil when it is not an address literal (host names are not resolved).
    init?(host: String, port: UInt16) {
        if host.contains(":") {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else { return nil }
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in6.self) }
            isIPv6 = true
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return nil }
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in.self) }
            isIPv6 = false
        }
    }

    /// Calls `body` with the address as a `sockaddr` pointer, valid only during the call.
    func withSockAddr<Result>(_ body: (UnsafePointer<sockaddr>) throws -> Result) rethrows -> Result {
        try withUnsafeBytes(of: storage) { bytes in
            try body(bytes.baseAddress!.assumingMemoryBound(to: sockaddr.self))
        }
    }
}
