import CMicroHTTPD
import Foundation

// Reading a request's values from, and queueing a response on, a libmicrohttpd connection.

// MARK: - Request values

/// The request's headers (`.HEADER_KIND`, names lower-cased, repeats joined with ", ") or
/// query arguments (`.GET_ARGUMENT_KIND`, decoded by libmicrohttpd; a bare `?flag` is "").
func values(of kind: MHD_ValueKind, in connection: OpaquePointer) -> [String: String] {
    var values: [String: String] = [:]
    withUnsafeMutablePointer(to: &values) { pointer in
        let collect: MHD_KeyValueIterator = kind == .HEADER_KIND ? collectHeader : collectArgument
        _ = MHD_get_connection_values(connection, kind, collect, pointer)
    }
    return values
}

/// The query arguments in order, repeats kept.
func queryItems(in connection: OpaquePointer) -> [HTTPQueryItem] {
    var items: [HTTPQueryItem] = []
    withUnsafeMutablePointer(to: &items) { pointer in
        _ = MHD_get_connection_values(connection, .GET_ARGUMENT_KIND, collectQueryItem, pointer)
    }
    return items
}

private func collectQueryItem(
    cls: UnsafeMutableRawPointer?, kind: MHD_ValueKind, key: UnsafePointer<CChar>?, value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let cls, let key else { return .YES }
    let items = cls.assumingMemoryBound(to: [HTTPQueryItem].self)
    items.pointee.append(HTTPQueryItem(name: String(cString: key), value: value.map { String(cString: $0) } ?? ""))
    return .YES
}

private func collectHeader(
    cls: UnsafeMutableRawPointer?, kind: MHD_ValueKind, key: UnsafePointer<CChar>?, value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let cls, let key else { return .YES }
    let values = cls.assumingMemoryBound(to: [String: String].self)
    let name = String(cString: key).lowercased()
    let text = value.map { String(cString: $0) } ?? ""
    if let earlier = values.pointee[name] {
        values.pointee[name] = earlier + ", " + text
    } else {
        values.pointee[name] = text
    }
    return .YES
}

private func collectArgument(
    cls: UnsafeMutableRawPointer?, kind: MHD_ValueKind, key: UnsafePointer<CChar>?, value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let cls, let key else { return .YES }
    let values = cls.assumingMemoryBound(to: [String: String].self)
    values.pointee[String(cString: key)] = value.map { String(cString: $0) } ?? ""
    return .YES
}

// MARK: - Responses

/// Headers libmicrohttpd writes itself from the body and the connection state; a handler's
/// copy would be refused or contradict them (`Connection: close` is honoured, see `queue`).
private let managedHeaders: Set<String> = ["content-length", "transfer-encoding", "connection"]

/// Headers every answer carries unless its handler set them: answers name customers and their
/// purchases, so no cache (a shared proxy's, a browser's) keeps them, and a browser takes each
/// for the type it says it is (a JSON body is never sniffed into a page).
private let defaultHeaders: KeyValuePairs<String, String> = [
    "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
]

/// Queues `response` on `connection`, copying the body (`.RESPMEM_MUST_COPY`). With `close`,
/// (or when the handler asked for it) the response carries `Connection: close` and
/// libmicrohttpd closes the connection after it.
func queue(_ response: HTTPResponse, on connection: OpaquePointer, close: Bool) -> MHD_Result {
    let created = response.body.withUnsafeBytes { bytes in
        MHD_create_response_from_buffer(
            bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
    }
    guard let created else { return .NO }
    let close =
        close || response.headers.contains { $0.key.lowercased() == "connection" && $0.value.lowercased() == "close" }
    defer { MHD_destroy_response(created) }
    for (name, value) in response.headers where !managedHeaders.contains(name.lowercased()) {
        // Refused only for a name or value with a line break; skipping it keeps the rest of the answer.
        _ = MHD_add_response_header(created, name, value)
    }
    if close {
        _ = MHD_add_response_header(created, "Connection", "close")
    }
    for (name, value) in defaultHeaders where !response.headers.keys.contains(where: { $0.lowercased() == name.lowercased() }) {
        _ = MHD_add_response_header(created, name, value)
    }
    return MHD_queue_response(connection, UInt32(clamping: response.status), created)
}

/// Adds to `framing` every value of the request's `Content-Length` and `Transfer-Encoding`
/// headers (any case), as sent, and the first header field that is malformed, in one walk over
/// the headers: a request may carry several of either, and libmicrohttpd's lookup gives the first.
func readFramingHeaders(of connection: OpaquePointer, into framing: inout RequestFraming) {
    withUnsafeMutablePointer(to: &framing) { pointer in
        _ = MHD_get_connection_values(connection, .HEADER_KIND, collectFramingValue, pointer)
    }
}

private func collectFramingValue(
    cls: UnsafeMutableRawPointer?, kind: MHD_ValueKind, key: UnsafePointer<CChar>?, value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let cls, let key else { return .YES }
    let framing = cls.assumingMemoryBound(to: RequestFraming.self)
    if framing.pointee.malformedField == nil,
        !HeaderFieldSyntax.isValidName(bytes(of: key))
            || !(value.map { HeaderFieldSyntax.isValidValue(bytes(of: $0)) } ?? true)
    {
        framing.pointee.malformedField = String(cString: key)
    }
    if strcasecmp(key, "Content-Length") == 0 {
        framing.pointee.contentLengths.append(value.map { String(cString: $0) } ?? "")
    } else if strcasecmp(key, "Transfer-Encoding") == 0 {
        framing.pointee.transferEncodings.append(value.map { String(cString: $0) } ?? "")
    } else if strcasecmp(key, "Host") == 0 {
        framing.pointee.hostFields += 1
    }
    return .YES
}

/// The bytes of a C string up to its NUL, valid as long as the string is.
private func bytes(of text: UnsafePointer<CChar>) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self), count: strlen(text))
}
