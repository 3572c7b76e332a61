import Foundation
import HTTP
import LoopbackClient
import Testing

/// `connectionsPerIP`: one address cannot take every connection slot, the slowloris way.
@Suite("Connections per IP address")
struct ConnectionsPerIPTests {
    private static func server(host: String = "127.0.0.1", limit: Int) throws -> HTTPServer {
        try startServer(host: host, connectionsPerIP: limit) { router in
            router.add("GET", "/health") { _ in .text("ok") }
        }
    }

    /// Connections from one address beyond the limit are closed as soon as they are accepted,
    /// over IPv4 and IPv6 alike; those within it are served, and one closed makes room again.
    @Test(arguments: ["127.0.0.1", "::1"])
    func connectionsBeyondTheLimitAreClosed(host: String) throws {
        let server = try Self.server(host: host, limit: 3)
        defer { server.shutdown(timeout: 1) }
        let held = try (0..<3).map { _ in try LoopbackConnection(host: host, port: server.port, timeoutSeconds: 5) }
        #expect(eventually { server.openConnections == 3 })
        let beyond = try LoopbackConnection(host: host, port: server.port, timeoutSeconds: 5)
        #expect(throws: LoopbackClientError.self) { try beyond.request("GET", "/health") }
        #expect(server.openConnections == 3)
        for connection in held {
            #expect(try connection.request("GET", "/health").status == 200)
        }
        held[0].close()
        #expect(eventually { server.openConnections == 2 })
        #expect(try LoopbackConnection(host: host, port: server.port, timeoutSeconds: 5).request("GET", "/health").status == 200)
    }

    /// Each address has a limit of its own: with 127.0.0.1 at its limit, a client at 127.0.0.2
    /// is served.
    @Test func anotherAddressIsServedWhileOneIsAtItsLimit() throws {
        let server = try Self.server(limit: 2)
        defer { server.shutdown(timeout: 1) }
        let held = try (0..<2).map { _ in try LoopbackConnection(port: server.port, timeoutSeconds: 5) }
        #expect(eventually { server.openConnections == 2 })
        let request = "GET /health HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
        // Closed unanswered: reset, or an end of stream with nothing before it.
        let refused = (try? exchange(from: "127.0.0.1", port: server.port, request: request)) ?? ""
        #expect(refused.isEmpty)
        let served = try exchange(from: "127.0.0.2", port: server.port, request: request)
        #expect(served.hasPrefix("HTTP/1.1 200"), "\(served)")
        withExtendedLifetime(held) {}
    }
}
