import Dispatch
import Foundation
import Synchronization
import Threads

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The addresses a host (a name, or an IPv4 or IPv6 literal) stands for, in the order the
/// system resolver gives them (`getaddrinfo`, RFC 6724 ordering with IPv6 and IPv4 mixed).
///
/// `getaddrinfo` blocks and takes no timeout: for a name it runs on a thread of its own while the
/// caller waits until its deadline, so an attempt fails at the deadline however slow the
/// resolver is. The abandoned lookup still holds its thread until the system resolver gives up
/// (`timeout` × `attempts` in resolv.conf, 5 s × 2 per name server by default); then it ends
/// and frees its result. Address literals never reach the resolver's network path and are
/// resolved on the caller's thread.
enum AddressResolver {
    /// One address to connect to.
    struct Address: Sendable, CustomStringConvertible {
        var family: Int32
        var storage: sockaddr_storage
        var length: socklen_t
        /// The address as text, `[v6]:port` or `v4:port`, for messages.
        var description: String
    }

    /// The addresses of `host` on `port`; fails with `.resolveFailed` when there are none, or
    /// with `.timedOut` when the resolver has not answered by `deadline`.
    static func addresses(of host: String, port: UInt16, by deadline: DispatchTime) throws(LoopbackClientError)
        -> [Address]
    {
        if isAddressLiteral(host) {
            return try lookUp(host, port: port).get()
        }
        let lookup = Lookup()
        Thread {
            lookup.result.withLock { $0 = lookUp(host, port: port) }
            lookup.done.signal()
        }.start()
        guard lookup.done.wait(timeout: deadline) == .success, let result = lookup.result.withLock({ $0 }) else {
            throw LoopbackClientError(code: .timedOut, message: "Resolving \(host) did not finish by the deadline.")
        }
        return try result.get()
    }

    /// Whether `host` is an IPv4 or IPv6 address literal (without brackets).
    static func isAddressLiteral(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// A lookup a waiting caller may abandon: the thread running it owns it as much as the caller.
    private final class Lookup: Sendable {
        let result = Mutex<Result<[Address], LoopbackClientError>?>(nil)
        let done = MonotonicSemaphore()
    }

    private static func lookUp(_ host: String, port: UInt16) -> Result<[Address], LoopbackClientError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        hints.ai_flags = AI_NUMERICSERV | (isAddressLiteral(host) ? AI_NUMERICHOST : 0)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0 else {
            let reason = status == EAI_SYSTEM ? String(cString: strerror(errno)) : String(cString: gai_strerror(status))
            return .failure(LoopbackClientError(code: .resolveFailed, message: "Cannot resolve \(host): \(reason)"))
        }
        defer { freeaddrinfo(list) }
        var addresses: [Address] = []
        var entry = list
        while let info = entry?.pointee {
            entry = info.ai_next
            guard let address = info.ai_addr, Int(info.ai_addrlen) <= MemoryLayout<sockaddr_storage>.size else { continue }
            var storage = sockaddr_storage()
            withUnsafeMutableBytes(of: &storage) {
                $0.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(info.ai_addrlen)))
            }
            addresses.append(
                Address(
                    family: info.ai_family, storage: storage, length: info.ai_addrlen,
                    description: text(storage, family: info.ai_family, port: port)))
        }
        guard !addresses.isEmpty else {
            return .failure(LoopbackClientError(code: .resolveFailed, message: "\(host) has no address."))
        }
        return .success(addresses)
    }

    private static func text(_ storage: sockaddr_storage, family: Int32, port: UInt16) -> String {
        var storage = storage
        var characters = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let converted = withUnsafeBytes(of: &storage) { bytes -> Bool in
            if family == AF_INET6 {
                var address = bytes.load(as: sockaddr_in6.self).sin6_addr
                return inet_ntop(AF_INET6, &address, &characters, socklen_t(characters.count)) != nil
            }
            var address = bytes.load(as: sockaddr_in.self).sin_addr
            return inet_ntop(AF_INET, &address, &characters, socklen_t(characters.count)) != nil
        }
        guard converted else { return "?:\(port)" }
        let address = String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return family == AF_INET6 ? "[\(address)]:\(port)" : "\(address):\(port)"
    }
}
