/// What a request's head says about its body and its expectations, read once the headers are in
/// and before any of the body is: enough to refuse a request whose body cannot be read safely,
/// or that will be refused anyway, without reading it.
struct RequestFraming {
    /// `HTTP/1.1` or `HTTP/1.0`.
    var version: String
    /// Every `Content-Length` header, as sent.
    var contentLengths: [String]
    /// Every `Transfer-Encoding` header, as sent.
    var transferEncodings: [String]
    var host: String?
    var expect: String?

    /// Whether a body follows the head.
    var hasBody: Bool {
        !transferEncodings.isEmpty || contentLengths.contains { (Int($0.trimmingSpaces) ?? 0) > 0 }
    }

    var expectsContinue: Bool { expect.map { $0.trimmingSpaces.lowercased() == "100-continue" } ?? false }
}

extension ServerCore {
    /// The answer to a request that is refused from its head alone (nil when its body may be
    /// read), counted in the metrics of the route it would have reached. The connection is
    /// closed after it, since the body, if any, is not read.
    ///
    /// - Content-Length headers that disagree, or a Content-Length beside a Transfer-Encoding:
    ///   where the body ends is ambiguous (RFC 9112, section 6.3), and a proxy in front that reads
    ///   it the other way would see another request in what follows (request smuggling).
    /// - More than one Transfer-Encoding header: 400 (chunked must be the last coding, RFC 9112
    ///   section 6.1, and libmicrohttpd reads only the first header).
    /// - A Transfer-Encoding other than chunked: 501, nothing else is decoded. Compared as
    ///   libmicrohttpd compares it, in any case but to the letter: it reads a body whose
    ///   Transfer-Encoding is `chunked ` (a space after) as ending only when the connection does,
    ///   so that request would wait, unanswered, for its idle timeout.
    /// - An HTTP/1.1 request without Host (RFC 9112, section 3.2).
    /// - An Expect other than 100-continue: 417 (RFC 9110, section 10.1.1).
    /// - A body, or a 100-continue, for a path or method no route takes: its 404 or 405 now,
    ///   instead of reading (or asking for) a body nobody wants.
    func refusal(of framing: RequestFraming, method: String, path: String, started: ContinuousClock.Instant)
        -> HTTPResponse?
    {
        let answer: HTTPResponse
        if framing.contentLengths.count > 1, Set(framing.contentLengths.map(\.trimmingSpaces)).count > 1 {
            answer = .error(status: 400, code: "bad_request", message: "The request has Content-Length headers that disagree.")
        } else if framing.transferEncodings.count > 1 {
            answer = .error(status: 400, code: "bad_request", message: "The request has more than one Transfer-Encoding header.")
        } else if !framing.transferEncodings.isEmpty, !framing.contentLengths.isEmpty {
            answer = .error(
                status: 400, code: "bad_request", message: "The request has both Content-Length and Transfer-Encoding.")
        } else if let encoding = framing.transferEncodings.first, encoding.lowercased() != "chunked" {
            answer = .error(
                status: 501, code: "not_implemented",
                message: "Transfer-Encoding \(Self.quoted(encoding)) is not supported: send Content-Length, or exactly chunked.")
        } else if framing.version == "HTTP/1.1", framing.host == nil {
            answer = .error(status: 400, code: "bad_request", message: "An HTTP/1.1 request must have a Host header.")
        } else if let expect = framing.expect, !framing.expectsContinue {
            answer = .error(
                status: 417, code: "expectation_failed", message: "Expect \(Self.quoted(expect)) cannot be met.")
        } else if framing.hasBody || framing.expectsContinue, let unrouted = unrouted(method: method, path: path) {
            answer = unrouted
        } else {
            return nil
        }
        return refused(answer, method: method, path: path, started: started)
    }
}

extension String {
    /// Without leading and trailing spaces and tabs (header whitespace).
    var trimmingSpaces: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return self[first...last]
    }
}
