import Foundation
import HTTP
import LoopbackClient
import Testing

@Suite("HTTPServer")
struct HTTPServerTests {
    /// Answers with what the server parsed, as JSON.
    private static func echo(_ request: HTTPRequest) -> HTTPResponse {
        let fields: [String: Any] = [
            "method": request.method, "path": request.path, "query": request.query,
            "parameters": request.pathParameters, "signature": request.header("X-Signature") ?? "",
            "body": String(decoding: request.body, as: UTF8.self),
        ]
        return .json(try! JSONSerialization.data(withJSONObject: fields), status: 201)
    }

    private static func echoServer() throws -> HTTPServer {
        try startServer { router in
            router.add("POST", "/v1/apple/notifications/{appId}", echo)
            router.add("GET", "/v1/items/{id}", echo)
        }
    }

    @Test func handlerSeesParametersQueryHeadersAndBody() throws {
        let server = try Self.echoServer()
        defer { server.shutdown(timeout: 1) }
        let connection = try LoopbackConnection(port: server.port)
        let response = try connection.request(
            "POST", "/v1/apple/notifications/com.example?mode=test&flag", headers: ["X-Signature": "sig"],
            body: Data(#"{"signedPayload":"x"}"#.utf8))
        #expect(response.status == 201)
        #expect(response.headers["content-type"] == "application/json")
        let object = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        #expect(object["method"] as? String == "POST")
        #expect(object["path"] as? String == "/v1/apple/notifications/com.example")
        #expect(object["query"] as? [String: String] == ["mode": "test", "flag": ""])
        #expect(object["parameters"] as? [String: String] == ["appId": "com.example"])
        #expect(object["signature"] as? String == "sig")
        #expect(object["body"] as? String == #"{"signedPayload":"x"}"#)
    }

    /// Every answer, a handler's or the server's own, is kept by no cache and never sniffed;
    /// a handler's own value wins.
    @Test func answersAreNotCachedNorSniffed() throws {
        let server = try startServer { router in
            router.add("GET", "/v1/items/{id}") { _ in .json(Data("{}".utf8)) }
            router.add("GET", "/docs") { _ in HTTPResponse(status: 200, headers: ["Cache-Control": "max-age=60"]) }
        }
        defer { server.shutdown(timeout: 1) }
        let connection = try LoopbackConnection(port: server.port)
        for path in ["/v1/items/1", "/nowhere"] {
            let response = try connection.request("GET", path)
            #expect(response.headers["cache-control"] == "no-store", "\(path)")
            #expect(response.headers["x-content-type-options"] == "nosniff", "\(path)")
        }
        let docs = try connection.request("GET", "/docs")
        #expect(docs.headers["cache-control"] == "max-age=60")
        #expect(docs.headers["x-content-type-options"] == "nosniff")
    }

    @Test func unknownPathIs404AndWrongMethodIs405() throws {
        let server = try Self.echoServer()
        defer { server.shutdown(timeout: 1) }
        let connection = try LoopbackConnection(port: server.port)
        let missing = try connection.request("GET", "/nowhere")
        #expect(missing.status == 404)
        #expect(missing.headers["content-type"] == "application/json")
        #expect(errorCode(missing) == "not_found")
        #expect(connection.isOpen)
        let wrongMethod = try connection.request("DELETE", "/v1/items/3")
        #expect(wrongMethod.status == 405)
        #expect(wrongMethod.headers["allow"] == "GET, HEAD")
        #expect(errorCode(wrongMethod) == "method_not_allowed")
        // A DELETE without Content-Length closes its connection (`RequestFraming.closesAfterAnswer`).
        #expect(wrongMethod.headers["connection"]?.lowercased() == "close")
    }

    /// The error names what was asked for, but sends back no more than 200 characters of it.
    @Test func errorMessagesCutALongPath() throws {
        let server = try Self.echoServer()
        defer { server.shutdown(timeout: 1) }
        let connection = try LoopbackConnection(port: server.port)
        let path = "/" + String(repeating: "a", count: 20_000)
        let missing = try connection.request("GET", path)
        #expect(missing.status == 404)
        let message = try #require(
            try JSONSerialization.jsonObject(with: missing.body) as? [String: [String: String]])["error"]?["message"]
        #expect(message == "No route for /\(String(repeating: "a", count: 199))….")
        #expect(missing.body.count < 400)
    }

    @Test func keepAliveServesManyRequestsOnOneConnection() throws {
        let server = try startServer { router in
            router.add("GET", "/v1/items/{id}") { request in .text("item \(request.pathParameters["id"] ?? "")") }
        }
        defer { server.shutdown(timeout: 1) }
        let connection = try LoopbackConnection(port: server.port)
        for index in 0..<500 {
            let response = try connection.request("GET", "/v1/items/\(index)")
            #expect(response.status == 200)
            #expect(response.text == "item \(index)")
        }
        #expect(connection.isOpen)
        #expect(server.openConnections == 1)
        let head = try connection.request("HEAD", "/v1/items/1")
        #expect(head.status == 200 && head.body.isEmpty)
        #expect(try connection.request("GET", "/v1/items/last").text == "item last")
    }

    @Test func bindsToIPv4LoopbackAndReportsAPortInUse() throws {
        let server = try startServer { router in router.add("GET", "/health") { _ in .text("ok") } }
        defer { server.shutdown(timeout: 1) }
        #expect(server.port != 0)
        #expect(try LoopbackConnection(host: "127.0.0.1", port: server.port).request("GET", "/health").text == "ok")

        let second = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: server.port, threads: 1), router: Router())
        let error = try #require(throws: HTTPServerError.self) { try second.start() }
        #expect(error.code == .startFailed)
        #expect(error.description.contains("127.0.0.1:\(server.port)"))
        #expect(error.description.contains("Address already in use"))
    }

    @Test(.enabled(if: FileManager.default.contents(atPath: "/proc/net/if_inet6") != nil, "needs IPv6 loopback"))
    func bindsToIPv6Loopback() throws {
        var router = Router()
        router.add("GET", "/health") { _ in .text("ok") }
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "::1", port: 0, threads: 2), router: router)
        let port = try server.start()
        defer { server.shutdown(timeout: 1) }
        #expect(try LoopbackConnection(host: "::1", port: port).request("GET", "/health").text == "ok")
    }

    @Test func rejectsHostNamesAndBadLimits() {
        let named = HTTPServer(configuration: HTTPServerConfiguration(host: "example.com", port: 0), router: Router())
        #expect(throws: HTTPServerError.self) { try named.start() }
        let noThreads = HTTPServer(configuration: HTTPServerConfiguration(port: 0, threads: 0), router: Router())
        #expect(throws: HTTPServerError.self) { try noThreads.start() }
    }

    @Test(arguments: [42, 100, 101, 199, 600, 999])
    func outOfRangeStatusBecomes500(status: Int) throws {
        let server = try startServer { router in router.add("GET", "/odd") { _ in HTTPResponse(status: status) } }
        defer { server.shutdown(timeout: 1) }
        let connection = try LoopbackConnection(port: server.port)
        let response = try connection.request("GET", "/odd")
        #expect(response.status == 500)
        #expect(errorCode(response) == "internal_error")
        #expect(try connection.request("GET", "/odd").status == 500)
    }

    @Test func startTwiceIsAnError() throws {
        let server = try startServer { _ in }
        defer { server.shutdown(timeout: 1) }
        #expect(throws: HTTPServerError.self) { try server.start() }
    }
}
