import Foundation
import HTTP
import LoopbackClient
import Testing

@Suite("Request body limit")
struct BodyLimitTests {
    private static func server(maxBodyBytes: Int) throws -> HTTPServer {
        try startServer(maxBodyBytes: maxBodyBytes) { router in
            router.add("POST", "/v1/upload") { request in .text("\(request.body.count)") }
            router.add("GET", "/health") { _ in .text("ok") }
        }
    }

    @Test func tenMebibyteBodyIsRefusedBeforeItIsReadAndOthersAreServed() throws {
        let server = try Self.server(maxBodyBytes: 1 << 20)
        defer { server.shutdown(timeout: 1) }
        let greedy = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
        var response: LoopbackResponse?
        let elapsed = try seconds {
            // Headers and the first 64 KiB only: the answer must not wait for the rest.
            var head = Data("POST /v1/upload HTTP/1.1\r\nHost: test\r\nContent-Length: \(10 << 20)\r\n\r\n".utf8)
            head.append(Data(repeating: 0x61, count: 64 << 10))
            try greedy.sendRaw(head)
            response = try greedy.readResponse()
        }
        #expect(elapsed < 1)
        #expect(response?.status == 413)
        #expect(response?.headers["connection"]?.lowercased() == "close")
        #expect(response.flatMap(errorCode) == "payload_too_large")
        #expect(eventually { !greedy.isOpen })

        let other = try LoopbackConnection(port: server.port)
        #expect(try other.request("GET", "/health").text == "ok")
        #expect(try other.request("POST", "/v1/upload", body: Data(count: 1000)).text == "1000")
    }

    /// Where a body ends is unknowable when its lengths disagree (RFC 9110, section 8.6): it is
    /// refused at once with a JSON 400, instead of the server waiting for the longer one; lengths
    /// that agree are one length. (One header holding a list, `2, 3`, libmicrohttpd refuses itself.)
    @Test(arguments: [
        ("Content-Length: 5\r\nContent-Length: 7\r\n", 400), ("Content-Length: 2\r\ncontent-length: 3\r\n", 400),
        ("Content-Length: 2\r\ncontent-length: 2\r\n", 200),
    ])
    func contentLengthsThatDisagreeAre400(headers: String, status: Int) throws {
        let server = try Self.server(maxBodyBytes: 1 << 20)
        defer { server.shutdown(timeout: 1) }
        let client = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
        var response: LoopbackResponse?
        let elapsed = try seconds {
            try client.sendRaw(Data("POST /v1/upload HTTP/1.1\r\nHost: test\r\n\(headers)\r\nab".utf8))
            response = try client.readResponse()
        }
        #expect(elapsed < 1)
        #expect(response?.status == status)
        if status == 400 { #expect(response.flatMap(errorCode) == "bad_request") } else { #expect(response?.text == "2") }
    }

    @Test func clientWritingTheWholeBodyStillReadsTheEarly413() throws {
        let server = try Self.server(maxBodyBytes: 1 << 20)
        defer { server.shutdown(timeout: 1) }
        // The server closes with body bytes still arriving, so the kernel resets the connection and the
        // client's write may fail; Linux still hands the client the 413 that arrived before the reset.
        for size in [(1 << 20) + 1, 10 << 20] {
            let greedy = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
            var response: LoopbackResponse?
            let elapsed = try seconds { response = try greedy.request("POST", "/v1/upload", body: Data(count: size)) }
            #expect(response?.status == 413)
            #expect(elapsed < 1)
            #expect(!greedy.isOpen)
        }
        #expect(try LoopbackConnection(port: server.port).request("GET", "/health").text == "ok")
    }

    @Test func chunkedBodyGrowingPastTheLimitIs413() throws {
        let server = try Self.server(maxBodyBytes: 4096)
        defer { server.shutdown(timeout: 1) }
        let connection = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
        try connection.sendRaw(chunkedRequest(Data(count: 5000), chunkSize: 1000))
        let response = try connection.readResponse()
        #expect(response.status == 413)
        #expect(errorCode(response) == "payload_too_large")
        #expect(eventually { !connection.isOpen })
        #expect(eventually { server.bufferedBodyBytes == 0 })
    }

    @Test func chunkedBodyFarPastTheLimitIsCutOff() throws {
        let server = try Self.server(maxBodyBytes: 4096)
        defer { server.shutdown(timeout: 1) }
        let connection = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
        do {
            try connection.sendRaw(chunkedRequest(Data(count: 256 << 10), chunkSize: 8192))
        } catch let error as LoopbackClientError {
            #expect(error.code == .sendFailed)  // the server may close while the body is still going out
        }
        #expect(throws: LoopbackClientError.self) { try connection.readResponse() }
        #expect(try LoopbackConnection(port: server.port).request("GET", "/health").text == "ok")
        #expect(eventually { server.bufferedBodyBytes == 0 })
    }

    @Test func bodyExactlyAtTheLimitIsAccepted() throws {
        let server = try Self.server(maxBodyBytes: 4096)
        defer { server.shutdown(timeout: 1) }
        let connection = try LoopbackConnection(port: server.port)
        #expect(try connection.request("POST", "/v1/upload", body: Data(count: 4096)).text == "4096")
        try connection.sendRaw(chunkedRequest(Data(count: 4096), chunkSize: 1000))
        #expect(try connection.readResponse().text == "4096")
        #expect(connection.isOpen)
        let over = try connection.request("POST", "/v1/upload", body: Data(count: 4097))
        #expect(over.status == 413)
    }

    /// A route under a prefix with a smaller limit refuses a body over it, declared or chunked,
    /// with that limit in the message; other paths keep the server's. A prefix limit larger
    /// than the server's does not raise it.
    @Test func aPrefixLimitIsSmallerThanTheServers() throws {
        let server = try startServer(maxBodyBytes: 4096) { router in
            router.add("POST", "/v1/upload") { request in .text("\(request.body.count)") }
            router.add("POST", "/v1/small/{id}") { request in .text("\(request.body.count)") }
            router.add("POST", "/v1/large") { request in .text("\(request.body.count)") }
            router.limitBodies(under: "/v1/small", to: 100)
            router.limitBodies(under: "/v1/large", to: 1 << 20)
        }
        defer { server.shutdown(timeout: 1) }
        let connection = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
        #expect(try connection.request("POST", "/v1/small/a", body: Data(count: 100)).text == "100")
        let declared = try connection.request("POST", "/v1/%73mall/a", body: Data(count: 101))
        #expect(declared.status == 413)
        #expect(declared.text.contains("larger than 100 bytes"), "\(declared.text)")
        let chunked = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
        try chunked.sendRaw(chunkedRequest(Data(count: 300), chunkSize: 50, path: "/v1/small/b"))
        #expect(try chunked.readResponse().status == 413)
        let other = try LoopbackConnection(port: server.port)
        #expect(try other.request("POST", "/v1/upload", body: Data(count: 4096)).text == "4096")
        #expect(try other.request("POST", "/v1/large", body: Data(count: 4097)).status == 413)
        #expect(eventually { server.bufferedBodyBytes == 0 })
    }
}
