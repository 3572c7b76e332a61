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
    if let accessLog = core.accessLog {
        accessLog(
            AccessEntry(
                method: context.method, path: context.path, status: response.status, bytes: response.body.count,
                seconds: (ContinuousClock.now - context.started).inSeconds, remoteAddress: remoteAddress(of: connection),
                forwardedFor: MHD_lookup_connection_value(connection, .HEADER_KIND, "X-Forwarded-For").map {
                    String(cString: $0)
                }))
    }
    return result
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
