/// What a request's head says about its body and its expectations, read once the headers are in
/// and before any of the body is: enough to refuse a request whose body cannot be read safely,
/// or that will be refused anyway, without reading it.
struct RequestFraming {
    /// `HTTP/1.1` or `HTTP/1.0`.
    var version: String
    /// Every `Content-Length` header, as sent.
    var contentLengths: [String] = []
    /// Every `Transfer-Encoding` header, as sent.
    var transferEncodings: [String] = []
    var host: String?
    /// How many Host header fields the head has.
    var hostFields = 0
    var expect: String?
    /// The name, as sent, of the first header field whose name or value is malformed
    /// (`HeaderFieldSyntax`); nil when none is.
    var malformedField: String?

    /// What the (first) Content-Length declares.
    var declaredLength: DeclaredLength {
        contentLengths.first.map { DeclaredLength($0.trimmingSpaces) } ?? .none
    }

    /// Whether a body follows the head.
    var hasBody: Bool {
        !transferEncodings.isEmpty || (declaredLength != .none && declaredLength != .bytes(0))
    }

    /// Whether the request must carry one Host: HTTP/1.1, or a later 1.x, which a server
    /// answers as 1.1 (RFC 9112, sections 2.3 and 3.2).
    var needsHost: Bool {
        guard version.hasPrefix("HTTP/1."), let minor = Int(version.dropFirst("HTTP/1.".count)) else { return false }
        return minor >= 1
    }

    var expectsContinue: Bool { expect.map { $0.trimmingSpaces.lowercased() == "100-continue" } ?? false }

    /// Whether the connection closes after the answer because the head may have been read short:
    /// a request other than GET or HEAD (any method, in any case) sent with neither
    /// Content-Length nor Transfer-Encoding. libmicrohttpd ends a head at a line with an empty
    /// name (`: x`) and drops a folded line with the field it continues, without a word; a proxy
    /// in front that kept the Content-Length such a line hid would send a body that would
    /// otherwise be read here as the next request. GET and HEAD keep their connections: they are
    /// most requests, and carry no body but a smuggler's.
    func closesAfterAnswer(method: String) -> Bool {
        contentLengths.isEmpty && transferEncodings.isEmpty && method != "GET" && method != "HEAD"
    }
}

/// The body length a `Content-Length` value declares, read digit by digit: any text a client
/// sends gives one of these, never a trap.
enum DeclaredLength: Equatable {
    /// No Content-Length.
    case none
    case bytes(Int)
    /// Digits only, but more than `Int.max`: larger than any body limit.
    case tooLarge
    /// Not a run of ASCII digits: empty, signed, fractional, hexadecimal, exponent, "NaN" and so on
    /// (RFC 9110, section 8.6: `1*DIGIT`).
    case invalid

    init(_ text: Substring) {
        guard !text.isEmpty else {
            self = .invalid
            return
        }
        var value = 0
        var overflowed = false
        for byte in text.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else {
                self = .invalid
                return
            }
            let (shifted, shiftOverflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, sumOverflow) = shifted.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
            overflowed = overflowed || shiftOverflow || sumOverflow
            value = sum
        }
        self = overflowed ? .tooLarge : .bytes(value)
    }
}

extension ServerCore {
    /// The answer to a request that is refused from its head alone (nil when its body may be
    /// read), counted in the metrics of the route it would have reached. The connection is
    /// closed after it, since the body, if any, is not read.
    ///
    /// - A header field whose name is not a token (a space before the colon: RFC 9112, section
    ///   5.1, says to answer 400) or whose value holds a control character (a bare CR: RFC 9110,
    ///   section 5.5): a proxy in front may read either differently, and see other fields.
    /// - Content-Length headers that disagree, or a Content-Length beside a Transfer-Encoding:
    ///   where the body ends is ambiguous (RFC 9112, section 6.3), and a proxy in front that reads
    ///   it the other way would see another request in what follows (request smuggling).
    /// - More than one Transfer-Encoding header: 400 (chunked must be the last coding, RFC 9112
    ///   section 6.1, and libmicrohttpd reads only the first header).
    /// - A Transfer-Encoding other than chunked: 501, nothing else is decoded. Compared as
    ///   libmicrohttpd compares it, in any case but to the letter: it reads a body whose
    ///   Transfer-Encoding is `chunked ` (a space after) as ending only when the connection does,
    ///   so that request would wait, unanswered, for its idle timeout.
    /// - A Content-Length that is not a number: 400 (libmicrohttpd answers the first one itself;
    ///   this covers every one).
    /// - An HTTP/1.1 (or later 1.x) request without Host, or any with more than one (RFC 9112,
    ///   section 3.2).
    /// - An Expect other than 100-continue: 417 (RFC 9110, section 10.1.1).
    /// - A body, or a 100-continue, for a path or method no route takes: its 404 or 405 now,
    ///   instead of reading (or asking for) a body nobody wants.
    func refusal(of framing: RequestFraming, method: String, path: String, started: ContinuousClock.Instant)
        -> HTTPResponse?
    {
        let answer: HTTPResponse
        if let field = framing.malformedField {
            answer = .error(
                status: 400, code: "bad_request",
                message: "The header field \(Self.quoted(field)) is malformed (a name that is not a token, or a control "
                    + "character in its value).")
        } else if framing.contentLengths.count > 1, Set(framing.contentLengths.map(\.trimmingSpaces)).count > 1 {
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
        } else if framing.declaredLength == .invalid {
            answer = .error(status: 400, code: "bad_request", message: "The Content-Length is not a number.")
        } else if framing.hostFields > 1 {
            answer = .error(status: 400, code: "bad_request", message: "The request has more than one Host header.")
        } else if framing.needsHost, framing.host == nil {
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
