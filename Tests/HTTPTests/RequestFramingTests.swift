import Foundation
import HTTP
import LoopbackClient
import Synchronization
import Testing

/// Requests refused from their head alone, at once and with a JSON error, before any body is
/// read; the connection closes after the answer, so nothing after the head is taken for another
/// request.
@Suite("Request framing")
struct RequestFramingTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var head: String
        var status: Int
        var code: String?
        var testDescription: String { head.split(separator: "\r\n").joined(separator: " | ") }
    }

    @Test(arguments: [
        // Content-Length beside Transfer-Encoding: the smuggled GET after it must not be answered.
        Case(
            head:
                "POST /v1/upload HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\nGET /health HTTP/1.1\r\nHost: t\r\n\r\n",
            status: 400, code: "bad_request"),
        Case(
            head: "POST /v1/upload HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip\r\n\r\nxx", status: 501,
            code: "not_implemented"),
        // libmicrohttpd decodes chunked only when the header says so to the letter: with a space
        // after it, it would read the body up to the connection's end, and nobody would answer.
        Case(
            head: "POST /v1/upload HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked \r\n\r\n2\r\n{}\r\n0\r\n\r\n",
            status: 501, code: "not_implemented"),
        // Two codings, chunked first: not the last coding (RFC 9112), and libmicrohttpd reads only the first header.
        Case(
            head:
                "POST /v1/upload HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
            status: 400, code: "bad_request"),
        Case(head: "GET /health HTTP/1.1\r\n\r\n", status: 400, code: "bad_request"),
        // Whitespace before the colon: libmicrohttpd keeps it in the name, so it would not see the
        // Transfer-Encoding a proxy that trims it does, and would take the body for another request.
        Case(
            head:
                "POST /v1/upload HTTP/1.1\r\nHost: t\r\nTransfer-Encoding : chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\nGET /health HTTP/1.1\r\nHost: t\r\n\r\n",
            status: 400, code: "bad_request"),
        Case(
            head: "POST /v1/upload HTTP/1.1\r\nHost: t\r\nContent-Length\t: 2\r\n\r\n{}", status: 400,
            code: "bad_request"),
        // A bare CR inside a value, which another parser may take for the end of the line.
        Case(
            head: "GET /health HTTP/1.1\r\nHost: t\r\nX-Note: a\rTransfer-Encoding: chunked\r\n\r\n", status: 400,
            code: "bad_request"),
        Case(head: "GET /health HTTP/1.1\r\nHost: t\rX: y\r\n\r\n", status: 400, code: "bad_request"),
        Case(head: "GET /health HTTP/1.1\r\nHost: t\r\nX-Note: a\u{01}b\r\n\r\n", status: 400, code: "bad_request"),
        Case(
            head: "POST /v1/upload HTTP/1.1\r\nHost: t\r\nExpect: something\r\nContent-Length: 2\r\n\r\n", status: 417,
            code: "expectation_failed"),
        // A body, or a 100-continue, for no route: the 404 or 405 comes before any of it is read.
        Case(head: "POST /nowhere HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n", status: 404, code: "not_found"),
        Case(
            head: "POST /nowhere HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 100000\r\n\r\n", status: 404,
            code: "not_found"),
        Case(head: "PUT /health HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n", status: 405, code: "method_not_allowed"),
        // Two Host fields, and a later HTTP/1.x without one (answered as 1.1).
        Case(head: "GET /health HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", status: 400, code: "bad_request"),
        Case(head: "GET /health HTTP/1.2\r\n\r\n", status: 400, code: "bad_request"),
    ])
    func refusedFromTheHeadAlone(_ sent: Case) throws {
        let server = try startServer { router in
            router.add("POST", "/v1/upload") { request in .text("\(request.body.count)") }
            router.add("GET", "/health") { _ in .text("ok") }
        }
        defer { server.shutdown(timeout: 1) }
        let client = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
        var response: LoopbackResponse?
        let elapsed = try seconds {
            try client.sendRaw(Data(sent.head.utf8))
            response = try client.readResponse()
        }
        #expect(elapsed < 1)
        #expect(response?.status == sent.status)
        #expect(response.flatMap(errorCode) == sent.code)
        #expect(response?.headers["connection"]?.lowercased() == "close")
        #expect(response?.status != 100)
        #expect(eventually { !client.isOpen })
    }

    /// A request other than GET or HEAD whose Content-Length libmicrohttpd never shows (after a
    /// line with an empty name, or folded onto another line) is answered as bodiless and the
    /// connection closed, whether its route answers at once or later (deferred), and for a
    /// method no route takes: the body a proxy in front would send with it is never read here as
    /// another request. A bodiless GET keeps its connection.
    @Test(arguments: [
        ("POST /v1/upload HTTP/1.1\r\nHost: t\r\n: x\r\nContent-Length: 40\r\n\r\n", "0"),
        ("POST /v1/upload HTTP/1.1\r\nHost: t\r\nContent-Length: 40\r\n x\r\n\r\n", "0"),
        ("POST /v1/upload HTTP/1.1\r\nHost: t\r\n\r\n", "0"),
        ("POST /v1/later HTTP/1.1\r\nHost: t\r\n: x\r\nContent-Length: 40\r\n\r\n", "later 0"),
        ("DELETE /v1/upload HTTP/1.1\r\nHost: t\r\n: x\r\nContent-Length: 40\r\n\r\n", nil),
        ("post /v1/upload HTTP/1.1\r\nHost: t\r\n: x\r\nContent-Length: 40\r\n\r\n", nil),
    ])
    func aRequestWithoutALengthClosesItsConnection(_ head: String, _ body: String?) throws {
        let served = Mutex<[String]>([])
        let server = try startServer { router in
            router.add("POST", "/v1/upload") { request in
                served.withLock { $0.append("POST") }
                return .text("\(request.body.count)")
            }
            router.addDeferred("POST", "/v1/later") { request, reply in
                served.withLock { $0.append("POST") }
                let count = request.body.count
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) { reply(.text("later \(count)")) }
            }
            router.add("GET", "/health") { _ in
                served.withLock { $0.append("GET") }
                return .text("ok")
            }
        }
        defer { server.shutdown(timeout: 1) }
        let client = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
        try client.sendRaw(Data((head + "GET /health HTTP/1.1\r\nHost: t\r\n\r\n").utf8))
        let response = try client.readResponse()
        if let body { #expect(response.text == body) } else { #expect(response.status == 405) }
        #expect(response.headers["connection"]?.lowercased() == "close")
        #expect(eventually { !client.isOpen })
        #expect(served.withLock { $0 } == (body == nil ? [] : ["POST"]), "the GET after the head is never served")

        let get = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
        #expect(try get.request("GET", "/health").text == "ok")
        #expect(get.isOpen)
    }

    /// What stays accepted: HTTP/1.0 without Host, a target in absolute form, chunked,
    /// 100-continue for a route, and a bodiless request for no route keeps its connection.
    @Test func wellFormedRequestsAreServed() throws {
        let server = try startServer { router in
            router.add("POST", "/v1/upload") { request in .text("\(request.body.count)") }
            router.add("GET", "/health") { _ in .text("ok") }
        }
        defer { server.shutdown(timeout: 1) }
        let old = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
        try old.sendRaw(Data("GET /health HTTP/1.0\r\n\r\n".utf8))
        #expect(try old.readResponse().text == "ok")

        // The absolute form of a target is routed by its path.
        let absolute = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
        for target in ["http://t/health", "HTTPS://t:443/health?x=1", "http://t/health#f"] {
            try absolute.sendRaw(Data("GET \(target) HTTP/1.1\r\nHost: t\r\n\r\n".utf8))
            #expect(try absolute.readResponse().text == "ok", "\(target)")
        }
        // The authority ends at `?` or `#` too: what follows is a query or a fragment, not a path.
        for target in ["http://t", "http://t?/health", "http://t#/health", "https://t:443?x=/health"] {
            try absolute.sendRaw(Data("GET \(target) HTTP/1.1\r\nHost: t\r\n\r\n".utf8))
            #expect(try absolute.readResponse().status == 404, "\(target)")
        }

        let client = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
        try client.sendRaw(
            Data("POST /v1/upload HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: Chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n".utf8))
        #expect(try client.readResponse().text == "2")
        #expect(try client.request("GET", "/nowhere").status == 404)
        #expect(client.isOpen)
        #expect(try client.request("POST", "/v1/upload", headers: ["Expect": "100-continue"], body: Data(count: 3)).text == "3")
    }
}
