import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A running libmicrohttpd daemon: its worker threads, listening socket and connections.
///
/// It retains the `ServerCore` its callbacks reach through unretained pointers, so the core
/// lives as long as the daemon can call back. `@unchecked Sendable`: the handle is only passed
/// to libmicrohttpd calls that are safe from any thread that is not one of its workers
/// (quiesce, stop), and `stop` runs once.
final class MicroHTTPDDaemon: @unchecked Sendable {
    let core: ServerCore
    /// The port the listening socket is bound to.
    let port: UInt16
    private let handle: OpaquePointer
    private let stopped = Atomic<Bool>(false)

    /// Starts the daemon with a pool of `configuration.threads` workers, each running an
    /// epoll event loop, so a slow client costs a socket and a buffer but never a thread.
    init(configuration: HTTPServerConfiguration, core: ServerCore) throws(HTTPServerError) {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        let endpoint = "\(host):\(configuration.port)"
        guard let address = SocketAddress(host: configuration.host, port: configuration.port) else {
            throw HTTPServerError(
                code: .invalidAddress, message: "\(configuration.host) is not an IPv4 or IPv6 address literal.")
        }
        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue
        // ITC lets MHD_quiesce_daemon wake the workers; MHD refuses to quiesce a threaded daemon without it.
        flags |= MHD_USE_ITC.rawValue
        // Messages go to `microHTTPDLog`, not stderr.
        flags |= MHD_USE_ERROR_LOG.rawValue
        // Deferred handlers suspend their connection while they wait (a storage commit) and resume it.
        flags |= MHD_ALLOW_SUSPEND_RESUME.rawValue
        if address.isIPv6 {
            flags |= MHD_USE_IPv6.rawValue
        }
        let context = Unmanaged.passUnretained(core).toOpaque()
        // One worker is the internal polling thread itself; MHD warns about a pool of one.
        let poolSize = configuration.threads > 1 ? UInt32(configuration.threads) : 0
        core.beginCollectingMessages()
        let handle = address.withSockAddr { sockAddr in
            CMicroHTTPD_startDaemon(
                flags, configuration.port, sockAddr, microHTTPDAccess, context,
                poolSize, UInt32(configuration.connectionTimeoutSeconds),
                // 32 KiB per connection: a whole App Store notification (about 14 KiB) still arrives in
                // one or two reads, with room for headers. MHD clears the pool after every request, so
                // its size is paid on each one (128 KiB cost 2.4% of a GET /v1/subscribers profile).
                UInt32(configuration.connectionLimit), 32 * 1024,
                microHTTPDRequestCompleted, microHTTPDConnectionNotified, microHTTPDLog, microHTTPDRequestTarget)
        }
        let messages = core.endCollectingMessages()
        guard let handle else {
            let detail = messages.isEmpty ? "" : ": " + messages.joined(separator: "; ")
            throw HTTPServerError(code: .startFailed, message: "Could not listen on \(endpoint)\(detail)")
        }
        self.handle = handle
        self.core = core
        self.port = CMicroHTTPD_boundPort(handle)
    }

    /// Stops accepting connections: the listening socket leaves the workers' event loops and is
    /// closed, so new connections are refused while open ones are still served.
    func quiesce() {
        let socket = MHD_quiesce_daemon(handle)
        if socket >= 0 {
            close(socket)
        }
    }

    /// Stops the workers and closes every connection; requests still running are cut off.
    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        MHD_stop_daemon(handle)
    }

    deinit {
        stop()
    }
}
