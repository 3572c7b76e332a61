import CMicroHTTPD
import Foundation
import Threads

/// Queues `response` for the request of `context` and, when the server keeps an access log,
/// hands it the request's entry.
func answer(
    _ response: HTTPResponse, for context: RequestContext, on connection: OpaquePointer, core: ServerCore, close: Bool
) -> MHD_Result {
    // Before the queueing: libmicrohttpd may send it, and report the request done, right after.
    core.deadlines?.answerQueued(connection)
    let result = queue(response, on: connection, close: close)
    logAccess(status: response.status, bytes: response.body.count, unsent: nil, for: context, on: connection, core: core)
    return result
}

/// The access line of a request done before its deferred answer was queued (its connection was
/// lost or timed out, or the server stopped, while the answer was being made): the answer's status (0 if
/// none was made) and why it was not sent. libmicrohttpd completes a suspended request only
/// once it is resumed, which `settle` does after storing the answer: `take()` finds it.
func logUnsentAnswer(
    for context: RequestContext, on connection: OpaquePointer, core: ServerCore, reason: MHD_RequestTerminationCode
) {
    guard core.accessLog != nil, context.deferredReply.pending.load(ordering: .relaxed) else { return }
    let status = context.deferredReply.take()?.status ?? 0
    let why =
        switch reason {
        case .REQUEST_TERMINATED_TIMEOUT_REACHED: "timed_out"
        case .REQUEST_TERMINATED_DAEMON_SHUTDOWN: "shutdown"
        default: "connection_lost"
        }
    logAccess(status: status, bytes: 0, unsent: why, for: context, on: connection, core: core)
}

/// The access line, status 0, of a request that ended with no answer of the server's and no
/// line yet: `before_head` when it ended before its head was in, which is libmicrohttpd
/// refusing it itself (a `Content-Length` of 2^64 or more, or a malformed one; a head larger
/// than its buffer, or a query of more arguments than it holds: it answers 413, 400 or 431, or
/// nothing, and closes, and does not say which) or the client leaving first (the two look
/// alike from here); `timed_out`, `shutdown`, or `connection_lost` (its body cut short, or
/// refused by libmicrohttpd) otherwise. `headersReadable` is false once libmicrohttpd has freed
/// the connection's memory (a connection closing): its headers are not read then.
func logUnansweredRequest(
    for context: RequestContext, on connection: OpaquePointer, core: ServerCore, reason: MHD_RequestTerminationCode,
    headersReadable: Bool = true
) {
    guard core.accessLog != nil, !context.accessLogged else { return }
    let why =
        switch reason {
        case .REQUEST_TERMINATED_TIMEOUT_REACHED: "timed_out"
        case .REQUEST_TERMINATED_DAEMON_SHUTDOWN: "shutdown"
        default: context.headersSeen ? "connection_lost" : "before_head"
        }
    logAccess(status: 0, bytes: 0, unsent: why, for: context, on: connection, core: core, headersReadable: headersReadable)
}

private func logAccess(
    status: Int, bytes: Int, unsent: String?, for context: RequestContext, on connection: OpaquePointer, core: ServerCore,
    headersReadable: Bool = true
) {
    guard let accessLog = core.accessLog else { return }
    context.accessLogged = true
    let forwardedFor =
        headersReadable
        ? MHD_lookup_connection_value(connection, .HEADER_KIND, "X-Forwarded-For").map { AccessEntry.cut(String(cString: $0)) }
        : nil
    accessLog(
        AccessEntry(
            method: AccessEntry.cut(context.method), path: AccessEntry.cut(context.path), status: status, bytes: bytes,
            seconds: (ContinuousClock.now - context.started).inSeconds, remoteAddress: remoteAddress(of: connection),
            forwardedFor: forwardedFor, unsent: unsent))
}

/// The client's numeric address ("192.0.2.1", "2001:db8::1"), or "-".
private func remoteAddress(of connection: OpaquePointer) -> String {
    guard let address = CMicroHTTPD_clientAddress(connection) else { return "-" }
    let length =
        Int32(address.pointee.sa_family) == AF_INET6
        ? socklen_t(MemoryLayout<sockaddr_in6>.size) : socklen_t(MemoryLayout<sockaddr_in>.size)
    return withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(NI_MAXHOST)) { host in
        guard getnameinfo(address, length, host.baseAddress, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else {
            return "-"
        }
        return String(cString: host.baseAddress!)
    }
}
