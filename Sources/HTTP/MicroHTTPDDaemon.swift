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
    /// The listening socket once `quiesce` took it from the workers (-1 before): libmicrohttpd's
    /// documentation says it must stay open until the daemon is stopped, so `stop` closes it.
    private let quiescedSocket = Atomic<Int32>(-1)

    /// Starts the daemon with a pool of `configuration.threads` workers, each running a `poll`
    /// event loop, so a slow client costs a socket and a buffer but never a thread.
    ///
    /// `poll`, not epoll: with an epoll worker pool, libmicrohttpd 0.9.75's `MHD_quiesce_daemon`
    /// removes the listening socket from each worker's epoll set from the calling thread while a
    /// busy worker that saw the quiesce flag may remove it first, and the loser aborts the process
    /// ("Failed to remove listen FD from epoll set"); shutdowns under load hit that race at times.
    /// With `poll` the quiesce only tells the workers, through their ITC, to stop polling it.
    init(configuration: HTTPServerConfiguration, core: ServerCore) throws(HTTPServerError) {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        let endpoint = "\(host):\(configuration.port)"
        guard let address = SocketAddress(host: configuration.host, port: configuration.port) else {
            throw HTTPServerError(
                code: .invalidAddress, message: "\(configuration.host) is not an IPv4 or IPv6 address literal.")
        }
        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_POLL.rawValue
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
                // its size is paid on each one: a larger pool makes every request cost more.
                UInt32(configuration.connectionLimit), UInt32(configuration.connectionsPerIP), 32 * 1024,
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
    /// shut down, so new connections are refused at once (and those waiting in its backlog reset)
    /// while open ones are still served. It stays open, unused, until `stop`: a worker that was
    /// already past its last look at the quiesce flag gets an error from `accept`, which
    /// libmicrohttpd expects during shutdown, not a descriptor number reused meanwhile.
    func quiesce() {
        let socket = MHD_quiesce_daemon(handle)
        guard socket >= 0 else { return }
        // Qualified: unqualified, the release build's whole-module type check lost `SHUT_RDWR`.
        #if canImport(Glibc)
            _ = Glibc.shutdown(socket, Int32(Glibc.SHUT_RDWR))
        #else
            _ = Darwin.shutdown(socket, SHUT_RDWR)
        #endif
        quiescedSocket.store(socket, ordering: .releasing)
    }

    /// Stops the workers and closes every connection; requests still running are cut off.
    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        MHD_stop_daemon(handle)
        let socket = quiescedSocket.exchange(-1, ordering: .acquiringAndReleasing)
        if socket >= 0 { close(socket) }
    }

    deinit {
        stop()
    }
}
