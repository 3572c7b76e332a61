import CMicroHTTPD
import Foundation

// libmicrohttpd's callbacks. They are top-level functions in a file that is not main.swift, so
// they carry no actor isolation: libmicrohttpd calls them on its own worker threads. Each gets
// the `ServerCore` through its `cls` pointer, passed unretained (the daemon handle retains it).

// MARK: - Requests

/// The access handler: called once when the headers are in, once per piece of body, and once
/// more when the request is complete (see `RequestContext`).
func microHTTPDAccess(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?, url: UnsafePointer<CChar>?,
    method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?, uploadData: UnsafePointer<CChar>?,
    uploadDataSize: UnsafeMutablePointer<Int>?, requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let cls, let connection, let uploadDataSize, let requestContext else { return .NO }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()

    let seen = requestContext.pointee.map { Unmanaged<RequestContext>.fromOpaque($0).takeUnretainedValue() }
    guard let context = seen, context.headersSeen else {
        // First call: the headers are in, none of the body is read yet. The context was made from
        // the request line (`microHTTPDRequestTarget`), which keeps the path as sent; MHD's `url`
        // has its escapes decoded already (`%2F` is `/` there), so it is only a fallback.
        let context =
            seen
            ?? RequestContext(method: "", path: url.map { String(cString: $0) } ?? "/", started: .now, headersSeen: true)
        context.method = method.map { String(cString: $0) } ?? "GET"
        context.headersSeen = true
        if seen == nil {
            core.openRequests.add(1, ordering: .relaxed)
            requestContext.pointee = Unmanaged.passRetained(context).toOpaque()
        } else {
            // libmicrohttpd owes the completion callback from here on, which releases it.
            core.awaitingHead.taken(on: connection)
        }
        core.deadlines?.headersReceived(connection)
        func header(_ name: String) -> String? {
            MHD_lookup_connection_value(connection, .HEADER_KIND, name).map { String(cString: $0) }
        }
        var framing = RequestFraming(
            version: version.map { String(cString: $0) } ?? "HTTP/1.1", host: header("Host"), expect: header("Expect"))
        readFramingHeaders(of: connection, into: &framing)
        // Looked up only where a body follows: most requests (GET) have none.
        context.bodyLimit = framing.hasBody ? core.bodyLimit(for: context.path) : 0
        let refusal =
            core.refusal(of: framing, method: context.method, path: context.path, started: context.started)
            ?? core.admit(
                framing.declaredLength, limit: context.bodyLimit, method: context.method, path: context.path,
                started: context.started)
        guard let refusal else {
            if case .bytes(let declared) = framing.declaredLength { context.body.declaredBytes = declared }
            context.closeAfterAnswer = framing.closesAfterAnswer(method: context.method)
            return .YES
        }
        // Answering now makes libmicrohttpd skip the body and close the connection after the answer.
        core.deadlines?.received(connection)
        context.answeredEarly = true
        return answer(refusal, for: context, on: connection, core: core, close: true)
    }

    if context.deferredReply.pending.load(ordering: .relaxed) {
        // Called again after a deferred handler resumed the connection: its answer is ready.
        guard let response = context.deferredReply.take() else { return .YES }
        context.deferredReply.pending.store(false, ordering: .relaxed)
        return answer(
            response, for: context, on: connection, core: core,
            close: context.closeAfterAnswer || core.draining.load(ordering: .relaxed))
    }
    let size = uploadDataSize.pointee
    if size > 0 {
        // A piece of body. libmicrohttpd refuses a response queued during these calls, so a body
        // refused as it arrives is read and dropped up to its end and answered then (`RequestBody`).
        uploadDataSize.pointee = 0
        guard !context.answeredEarly else { return .YES }
        let piece = UnsafeRawBufferPointer(start: uploadData, count: uploadData == nil ? 0 : size)
        switch context.body.append(piece, limit: context.bodyLimit, budget: core.bodyBudget) {
        case .kept, .dropped:
            return .YES
        case .cutOff:
            core.observer?.connectionCutOff()
            return .NO
        }
    }

    // The whole request is in.
    core.deadlines?.received(connection)
    guard !context.answeredEarly else { return .YES }
    if let refusal = context.body.refusal {
        let refused = core.refusedBody(
            refusal, limit: context.bodyLimit, method: context.method, path: context.path, started: context.started)
        return answer(refused, for: context, on: connection, core: core, close: true)
    }
    let request = HTTPRequest(
        method: context.method, path: context.path, query: values(of: .GET_ARGUMENT_KIND, in: connection),
        headers: values(of: .HEADER_KIND, in: connection), body: context.body.take(),
        queryItems: queryItems(in: connection))
    let handle = ConnectionHandle(connection)
    let dispatched = core.dispatch(
        request, started: context.started, reply: context.deferredReply,
        suspend: { MHD_suspend_connection(connection) }, resume: { MHD_resume_connection(handle.connection) })
    switch dispatched {
    case .now(let response):
        return answer(
            response, for: context, on: connection, core: core,
            close: context.closeAfterAnswer || core.draining.load(ordering: .relaxed))
    case .later: return .YES
    }
}

/// Called with each request's target as sent, before libmicrohttpd decodes its escapes: makes
/// the request's context, which libmicrohttpd hands to the access handler (and, once the request
/// is done or abandoned, to `microHTTPDRequestCompleted`, which releases it). Until the access
/// handler has it, `AwaitingHead` holds it too, for a request libmicrohttpd gives up on first.
func microHTTPDRequestTarget(
    cls: UnsafeMutableRawPointer?, uri: UnsafePointer<CChar>?, connection: OpaquePointer?
) -> UnsafeMutableRawPointer? {
    let target = uri.map { RequestContext.target(raw: UnsafeRawBufferPointer(start: $0, count: strlen($0))) } ?? "/"
    let context = RequestContext(method: "", path: RequestContext.path(ofTarget: target), started: .now, headersSeen: false)
    let pointer = Unmanaged.passRetained(context).toOpaque()
    if let cls {
        let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
        core.openRequests.add(1, ordering: .relaxed)
        if let connection { core.awaitingHead.begun(pointer, on: connection) }
    }
    return pointer
}

/// A connection pointer handed to the thread that resumes it. libmicrohttpd keeps a suspended
/// connection alive until it is resumed, and allows resuming from any thread.
private struct ConnectionHandle: @unchecked Sendable {
    let connection: OpaquePointer
    init(_ connection: OpaquePointer) { self.connection = connection }
}

/// Called once for every request the access handler saw, when it is done or abandoned:
/// gives its body's share of the budget back and releases the request's context.
func microHTTPDRequestCompleted(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?,
    requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, reason: MHD_RequestTerminationCode
) {
    guard let cls else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    // A connection the deadlines cut off ends as if the client had left: it timed out.
    var reason = reason
    if let connection, core.deadlines?.wasCut(connection) == true { reason = .REQUEST_TERMINATED_TIMEOUT_REACHED }
    // The next request on a kept-alive connection is owed from now.
    if let connection { core.deadlines?.answered(connection) }
    guard let pointer = requestContext?.pointee else { return }
    requestContext?.pointee = nil
    if let connection { core.awaitingHead.taken(on: connection) }
    settle(pointer, on: connection, core: core, reason: reason, headersReadable: true)
}

/// The end of a request's context: its access line if it had none, its body's share of the
/// budget given back, the context released and the request no longer open. Once its
/// connection is closing, libmicrohttpd has freed the connection's memory, headers included
/// (`headersReadable` false): only the connection's address is read then.
private func settle(
    _ pointer: UnsafeMutableRawPointer, on connection: OpaquePointer?, core: ServerCore, reason: MHD_RequestTerminationCode,
    headersReadable: Bool
) {
    let context = Unmanaged<RequestContext>.fromOpaque(pointer)
    if let connection {
        if headersReadable {
            logUnsentAnswer(for: context.takeUnretainedValue(), on: connection, core: core, reason: reason)
        }
        logUnansweredRequest(
            for: context.takeUnretainedValue(), on: connection, core: core, reason: reason, headersReadable: headersReadable)
    }
    context.takeUnretainedValue().body.release(to: core.bodyBudget)
    context.release()
    core.openRequests.subtract(1, ordering: .relaxed)
}

// MARK: - Connections and logging

/// Counts connections as libmicrohttpd accepts and closes them, and tells the request
/// deadlines (libmicrohttpd reports a close before it closes the socket).
func microHTTPDConnectionNotified(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?,
    socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, event: MHD_ConnectionNotificationCode
) {
    guard let cls else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    switch event {
    case .CONNECTION_NOTIFY_STARTED:
        core.connectionOpened()
        if let connection { core.deadlines?.opened(connection, descriptor: CMicroHTTPD_connectionSocket(connection)) }
    case .CONNECTION_NOTIFY_CLOSED:
        if let connection {
            // A request libmicrohttpd gave up on before its head was handed over, with no
            // completion to come (`AwaitingHead`).
            if let abandoned = core.awaitingHead.abandoned(on: connection) {
                settle(abandoned, on: connection, core: core, reason: .REQUEST_TERMINATED_WITH_ERROR, headersReadable: false)
            }
            core.deadlines?.closed(connection)
        }
        core.connectionClosed()
    }
}

/// Formats one of libmicrohttpd's printf-style messages and hands it to the core.
func microHTTPDLog(cls: UnsafeMutableRawPointer?, format: UnsafePointer<CChar>?, arguments: CVaListPointer?) {
    guard let cls, let format, let arguments else { return }
    var message = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 512) { buffer in
        guard vsnprintf(buffer.baseAddress, buffer.count, format, arguments) >= 0 else { return String(cString: format) }
        return String(cString: buffer.baseAddress!)
    }
    while message.last?.isNewline == true { message.removeLast() }
    Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().log(message)
}
