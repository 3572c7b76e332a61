import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Tells systemd how the service stands, for a `Type=notify` unit: `READY=1` once it listens,
/// `RELOADING=1` and then `READY=1` around a reload, `STOPPING=1` when a stop begins
/// (sd_notify(3)'s protocol: one datagram to the `NOTIFY_SOCKET` systemd sets). Without that
/// variable (not started by systemd) it sends nothing. systemd then reports a start as done only
/// once the server listens, and takes no reload before that.
package struct SystemdNotify: Sendable {
    /// The socket's address bytes (`sun_path`; an abstract one starts with a zero byte).
    private let address: [UInt8]?

    package init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let socket = environment["NOTIFY_SOCKET"], !socket.isEmpty, socket.hasPrefix("/") || socket.hasPrefix("@")
        else {
            address = nil
            return
        }
        var bytes = Array(socket.utf8)
        if bytes[0] == UInt8(ascii: "@") { bytes[0] = 0 }
        address = bytes
    }

    /// Whether systemd is listening (`NOTIFY_SOCKET` is set).
    package var isActive: Bool { address != nil }

    /// Sends `state` (newline-separated `KEY=value` lines); false when it could not be sent.
    @discardableResult
    package func send(_ state: String) -> Bool {
        guard let address else { return false }
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: socketAddress.sun_path)
        guard address.count < capacity else { return false }
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { path in
            for (index, byte) in address.enumerated() { path[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + address.count)
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        let message = Array(state.utf8)
        let sent = withUnsafePointer(to: &socketAddress) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                sendto(descriptor, message, message.count, Int32(MSG_NOSIGNAL), generic, length)
            }
        }
        return sent == message.count
    }

    /// `RELOADING=1` with the monotonic clock's microseconds, as systemd asks of a reload.
    package static func reloading() -> String {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return "RELOADING=1\nMONOTONIC_USEC=\(UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000)"
    }
}
