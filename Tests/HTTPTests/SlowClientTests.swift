import Foundation
import HTTP
import LoopbackClient
import Testing

@Suite("Slow and idle clients")
struct SlowClientTests {
    @Test func stalledBodyAndIdleConnectionsDoNotBlockOthers() throws {
        let server = try startServer(threads: 2) { router in
            router.add("POST", "/v1/upload") { request in .text("\(request.body.count)") }
            router.add("GET", "/health") { _ in .text("ok") }
        }
        defer { server.shutdown(timeout: 1) }

        // Headers and half of the body, then nothing.
        let stalled = try LoopbackConnection(port: server.port)
        var halfRequest = Data("POST /v1/upload HTTP/1.1\r\nHost: test\r\nContent-Length: 2000\r\n\r\n".utf8)
        halfRequest.append(Data(count: 1000))
        try stalled.sendRaw(halfRequest)

        let idle = try (0..<500).map { _ in try LoopbackConnection(port: server.port) }
        #expect(eventually { server.openConnections == 501 })

        for _ in 0..<20 {
            let connection = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
            var response: LoopbackResponse?
            let elapsed = try seconds { response = try connection.request("GET", "/health") }
            #expect(response?.status == 200)
            #expect(elapsed < 1)
        }
        #expect(stalled.isOpen)
        withExtendedLifetime(idle) {}
    }

    @Test func stalledConnectionIsClosedAfterTheTimeout() throws {
        let server = try startServer(threads: 2, connectionTimeoutSeconds: 1) { router in
            router.add("POST", "/v1/upload") { request in .text("\(request.body.count)") }
        }
        defer { server.shutdown(timeout: 1) }
        let stalled = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
        try stalled.sendRaw(Data("POST /v1/upload HTTP/1.1\r\nHost: test\r\nContent-Length: 10\r\n\r\nhalf".utf8))
        let elapsed = seconds { #expect(throws: LoopbackClientError.self) { try stalled.readResponse() } }
        #expect(elapsed > 0.5 && elapsed < 3)
        #expect(!stalled.isOpen)
        #expect(eventually { server.openConnections == 0 })
    }
}
