import Foundation
import HTTP
import LoopbackClient
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `maxBufferedBodyBytes`: clients that send part of a large body and stop hold no more memory
/// between them than the budget, whatever their number.
@Suite("Buffered body budget")
struct BufferedBodyLimitTests {
    /// `count` clients each declaring a 1 MiB upload and sending only its first `bytes`.
    private static func stalledUploads(_ count: Int, sending bytes: Int, to server: HTTPServer) throws -> [LoopbackConnection] {
        let head = Data("POST /v1/upload HTTP/1.1\r\nHost: t\r\nContent-Length: \(1 << 20)\r\n\r\n".utf8)
        return try (0..<count).map { _ in
            let connection = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
            try connection.sendRaw(head + Data(count: bytes))
            return connection
        }
    }

    private static func server(
        maxBodyBytes: Int = 1 << 20, budget: Int, connectionTimeoutSeconds: Int = 10
    ) throws -> HTTPServer {
        try startServer(
            maxBodyBytes: maxBodyBytes, maxBufferedBodyBytes: budget, connectionTimeoutSeconds: connectionTimeoutSeconds
        ) { router in
            router.add("POST", "/v1/upload") { request in .text("\(request.body.count)") }
            router.add("GET", "/health") { _ in .text("ok") }
        }
    }

    /// The process's resident memory (VmRSS in /proc/self/status), in bytes.
    private static func residentBytes() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        let kibibytes = try #require(line.split(separator: " ").dropFirst().first.flatMap { Int($0) })
        return kibibytes << 10
    }

    /// 200 clients each declare a 1 MiB body, send 512 KiB of it and stop, against a 16 MiB
    /// budget: the server holds no more than the budget (what arrives past it is dropped as it
    /// arrives), and the process's resident memory grows by far less than the 100 MiB sent. A
    /// bodiless route answers throughout; once the clients leave, the budget is whole again.
    @Test func unfinishedBodiesHoldNoMoreThanTheBudget() throws {
        let budget = 16 << 20
        let server = try Self.server(budget: budget)
        defer { server.shutdown(timeout: 1) }
        let health = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
        let head = Data("POST /v1/upload HTTP/1.1\r\nHost: t\r\nContent-Length: \(1 << 20)\r\n\r\n".utf8)
        let part = Data(repeating: 0x61, count: 512 << 10)
        let before = try Self.residentBytes()
        var clients: [LoopbackConnection] = []
        for index in 0..<200 {
            let connection = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
            try connection.sendRaw(head)
            try connection.sendRaw(part)
            clients.append(connection)
            #expect(server.bufferedBodyBytes <= budget)
            if index.isMultiple(of: 40) {
                #expect(try health.request("GET", "/health").text == "ok")
            }
        }
        // The server reads what was sent as it arrives; give the last parts a moment.
        #expect(eventually { server.bufferedBodyBytes > budget / 2 })
        usleep(200_000)
        #expect(server.bufferedBodyBytes <= budget)
        let grown = try Self.residentBytes() - before
        #expect(grown < 64 << 20, "resident memory grew by \(grown >> 20) MiB")
        #expect(try health.request("GET", "/health").text == "ok")

        for connection in clients { connection.close() }
        #expect(eventually { server.bufferedBodyBytes == 0 })
        let after = try LoopbackConnection(port: server.port)
        #expect(try after.request("POST", "/v1/upload", body: Data(count: 1000)).text == "1000")
        #expect(eventually { server.bufferedBodyBytes == 0 })
    }

    /// 64 clients declare 1 MiB bodies against a 4 MiB budget and send none of them: they hold
    /// nothing, and a notification-sized body is taken in beside them.
    @Test func declaredLengthsHoldNothingUntilTheirBytesArrive() throws {
        let server = try Self.server(budget: 4 << 20)
        defer { server.shutdown(timeout: 1) }
        let idle = try Self.stalledUploads(64, sending: 0, to: server)
        let client = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
        #expect(try client.request("POST", "/v1/upload", body: Data(count: 14 << 10)).text == "14336")
        // The answered request gives its share back when libmicrohttpd completes it, which can
        // come just after the client has read the answer; the 64 heads hold nothing throughout.
        #expect(eventually { server.bufferedBodyBytes == 0 })
        for connection in idle { connection.close() }
    }

    /// Clients that stall bodies larger than 64 KiB take at most three quarters of the budget:
    /// a notification-sized body is still taken in beside them, though a large one is not.
    @Test func stalledLargeBodiesLeaveRoomForSmallOnes() throws {
        let server = try Self.server(budget: 4 << 20)
        defer { server.shutdown(timeout: 1) }
        let stalled = try Self.stalledUploads(5, sending: (1 << 20) - 100, to: server)
        // Whatever order their pieces arrive in, three bodies end up held whole: the last one
        // refused found the others refused before it, so less than a body's worth held.
        #expect(
            eventually { server.bufferedBodyBytes == 3 * ((1 << 20) - 100) }, "held \(server.bufferedBodyBytes)")
        let client = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
        #expect(try client.request("POST", "/v1/upload", body: Data(count: 14 << 10)).text == "14336")
        let large = try client.request("POST", "/v1/upload", body: Data(count: 200 << 10))
        #expect(large.status == 503, "held \(server.bufferedBodyBytes): \(large.text)")
        for connection in stalled { connection.close() }
        #expect(eventually { server.bufferedBodyBytes == 0 }, "held \(server.bufferedBodyBytes)")
    }

    /// Clients that declare large bodies and stall each within its first 64 KiB cannot fill the
    /// small bodies' share either: declared large, they draw on the rest only.
    @Test func largeBodiesStalledEarlyLeaveRoomForSmallOnes() throws {
        let server = try Self.server(budget: 4 << 20)
        defer { server.shutdown(timeout: 1) }
        // Enough to fill the whole budget but 4 KiB, were their first 64 KiB counted as small.
        let stalled = try Self.stalledUploads(70, sending: 62 << 10, to: server)
        #expect(eventually { server.bufferedBodyBytes >= 49 * (62 << 10) })
        Thread.sleep(forTimeInterval: 0.5)  // for the stalled bodies still being read
        let client = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
        #expect(try client.request("POST", "/v1/upload", body: Data(count: 14 << 10)).text == "14336")
        for connection in stalled { connection.close() }
        #expect(eventually { server.bufferedBodyBytes == 0 })
    }

    /// A body takes its share as it grows: with no room left it is read to its end, dropped and
    /// answered 503, chunked or declared. A client that goes silent with its body nearly all
    /// sent gives its share back when the idle timeout closes it.
    @Test func fullBudgetRefusesBodiesUntilTimedOutClientsGiveItBack() throws {
        let server = try Self.server(maxBodyBytes: 32 << 10, budget: 64 << 10, connectionTimeoutSeconds: 2)
        defer { server.shutdown(timeout: 1) }
        let stalled = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
        var head = Data("POST /v1/upload HTTP/1.1\r\nHost: t\r\nContent-Length: \(30 << 10)\r\n\r\n".utf8)
        let sent = (30 << 10) - 1
        head.append(Data(count: sent))
        try stalled.sendRaw(head)
        let other = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
        try other.sendRaw(head)
        #expect(eventually { server.bufferedBodyBytes == 2 * sent })

        let chunked = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
        try chunked.sendRaw(chunkedRequest(Data(count: 8 << 10), chunkSize: 1000))
        let busy = try chunked.readResponse()
        #expect(busy.status == 503)
        #expect(busy.headers["retry-after"] == "1")
        #expect(errorCode(busy) == "server_busy")
        let declared = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
        #expect(try declared.request("POST", "/v1/upload", body: Data(count: 8 << 10)).status == 503)
        #expect(server.bufferedBodyBytes == 2 * sent)

        // Both stalled clients are timed out, and their shares come back.
        #expect(eventually { server.bufferedBodyBytes == 0 })
        let client = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
        try client.sendRaw(chunkedRequest(Data(count: 8 << 10), chunkSize: 1000))
        #expect(try client.readResponse().text == "8192")
        #expect(try client.request("POST", "/v1/upload", body: Data(count: 8 << 10)).text == "8192")
        #expect(eventually { server.bufferedBodyBytes == 0 })
    }
}
