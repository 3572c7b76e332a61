import Foundation
import Synchronization

/// What the server keeps about one request between libmicrohttpd's calls for it.
///
/// libmicrohttpd calls the access handler once for the headers, once per piece of body and
/// once more when the request is complete, always on the worker thread that owns the
/// connection; this object carries the body across those calls. It is retained into the
/// request's `con_cls` pointer on the first call and released by the completion callback,
/// which libmicrohttpd calls exactly once for every request it called the handler for.
final class RequestContext {
    /// Set when the headers are in (the first call of the access handler).
    var method: String
    /// The path as the client sent it, escapes not decoded, without the query string.
    let path: String
    /// Whether the access handler has seen the headers: a context made from the request line
    /// (`microHTTPDRequestTarget`) has not yet.
    var headersSeen: Bool
    let started: ContinuousClock.Instant
    /// The body as it arrives, and the share of the body budget it holds until the request ends.
    var body = RequestBody()
    /// The largest body taken for its path (`ServerCore.bodyLimit`), set with the head; 0 for a
    /// request whose head says no body follows.
    var bodyLimit = 0
    /// The request was answered from its head: any body that still comes is ignored.
    var answeredEarly = false
    /// Its answer closes the connection (`RequestFraming.closesAfterAnswer`).
    var closeAfterAnswer = false
    /// A deferred handler's answer, set on its thread before the connection is resumed.
    let deferredReply = DeferredReply()
    /// Its access line was handed to the log: a request that ends without one was answered by
    /// libmicrohttpd itself, or abandoned (`logUnansweredRequest`). Read and written on
    /// libmicrohttpd's thread for the connection.
    var accessLogged = false

    init(method: String, path: String, started: ContinuousClock.Instant, headersSeen: Bool = true) {
        self.method = method
        self.path = path
        self.started = started
        self.headersSeen = headersSeen
    }

    /// The path part of a request target as sent: up to its query string.
    /// The request target as sent, as text. libmicrohttpd passes the bytes through as they came,
    /// and those that are not UTF-8 would become U+FFFD, so that raw `FF`, raw `FE` and
    /// `%EF%BF%BD` named one customer. A target that is not UTF-8 has each byte from 0x80 up
    /// written as its escape instead: the router decodes escapes back to the same bytes and
    /// refuses a segment that is not UTF-8, with 400.
    static func target(raw bytes: UnsafeRawBufferPointer) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        let hex = Array("0123456789ABCDEF".utf8)
        var escaped: [UInt8] = []
        escaped.reserveCapacity(bytes.count * 3)
        for byte in bytes {
            if byte < 0x80 {
                escaped.append(byte)
            } else {
                escaped += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: escaped, as: UTF8.self)
    }

    static func path(ofTarget target: String) -> String {
        var bytes = Substring(target).utf8
        // The absolute form (`http://host/path`), which a server must accept (RFC 9112, section
        // 3.2.2): the path is what follows the authority, `/` when nothing does. The authority
        // ends at the first `/`, `?` or `#` (RFC 3986, section 3.2): in `http://x?/v1/a` the
        // `/v1/a` is the query's, not a path.
        for scheme in ["http://", "https://"] where target.utf8.count >= scheme.utf8.count {
            let head = target.utf8.prefix(scheme.utf8.count)
            guard head.elementsEqual(scheme.utf8, by: { $0 | 0x20 == $1 }) else { continue }
            let authority = bytes.dropFirst(scheme.utf8.count)
            guard
                let end = authority.firstIndex(where: {
                    $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
                }),
                authority[end] == UInt8(ascii: "/")
            else { return "/" }
            bytes = authority[end...]
            break
        }
        return String(decoding: bytes.prefix { $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") }, as: UTF8.self)
    }
}

/// The answer of a deferred handler, handed from the thread that produced it to the worker
/// thread that queues it once libmicrohttpd resumes the connection.
///
/// Settled once: by the handler, or by a shutdown that cannot wait for it any longer
/// (`ServerCore.stopSuspending`); whichever comes second is dropped and must not resume
/// the connection, which may be gone by then.
final class DeferredReply: Sendable {
    private let response = Mutex<HTTPResponse?>(nil)
    private let settled = Atomic<Bool>(false)
    /// Set when the connection was suspended for this request.
    let pending = Atomic<Bool>(false)

    /// Stores the answer unless one was settled before; true when this one counts.
    func settle(_ value: HTTPResponse) -> Bool {
        guard settled.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            return false
        }
        response.withLock { $0 = value }
        return true
    }

    func take() -> HTTPResponse? {
        response.withLock { value in
            defer { value = nil }; return value
        }
    }
}
