import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Why `exchange(from:port:request:)` failed, with the system's reason.
struct SourceBoundExchangeError: Error, CustomStringConvertible {
    var description: String
}

/// Sends `request` over a new IPv4 connection to 127.0.0.1:`port` whose own address is `source`
/// (Linux answers for all of 127.0.0.0/8 on loopback, so 127.0.0.2 is a second client address),
/// and returns everything the server sends until it closes; a test asks with
/// `Connection: close`. `LoopbackConnection` leaves the client's address to the kernel.
func exchange(from source: String, port: UInt16, request: String, timeoutSeconds: Int = 5) throws -> String {
    func failure(_ call: String) -> SourceBoundExchangeError {
        SourceBoundExchangeError(description: "\(call): \(String(cString: strerror(errno)))")
    }
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { throw failure("socket") }
    defer { close(descriptor) }
    var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
    guard setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size)) == 0 else {
        throw failure("setsockopt")
    }
    func address(_ host: String, _ port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        _ = inet_pton(AF_INET, host, &address.sin_addr)
        return address
    }
    func withSockAddr<R>(_ address: sockaddr_in, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafeBytes(of: address) { bytes in
            body(bytes.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard withSockAddr(address(source, 0), { bind(descriptor, $0, $1) }) == 0 else { throw failure("bind \(source)") }
    guard withSockAddr(address("127.0.0.1", port), { connect(descriptor, $0, $1) }) == 0 else { throw failure("connect") }
    let bytes = Array(request.utf8)
    guard send(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else { throw failure("send") }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = recv(descriptor, &buffer, buffer.count, 0)
        guard count >= 0 else { throw failure("recv") }
        if count == 0 { break }
        received += buffer[0..<count]
    }
    return String(decoding: received, as: UTF8.self)
}
