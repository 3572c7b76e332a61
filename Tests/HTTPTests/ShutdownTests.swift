import Foundation
import HTTP
import LoopbackClient
import Testing

@Suite("Graceful shutdown")
struct ShutdownTests {
    @Test func inFlightRequestFinishesAndNewConnectionsAreRefused() throws {
        let server = try startServer(threads: 2) { router in
            router.add("GET", "/slow") { _ in
                usleep(300_000)
                return .text("done")
            }
        }
        let port = server.port
        let slow = Background { try LoopbackConnection(port: port).request("GET", "/slow") }
        #expect(eventually { server.inFlightRequests == 1 })

        let shutdownSeconds = Background { seconds { server.shutdown(timeout: 5) } }
        usleep(50_000)
        #expect(server.inFlightRequests == 1)
        let refused = try #require(throws: LoopbackClientError.self) { try LoopbackConnection(port: port) }
        #expect(refused.errno == ECONNREFUSED)

        let response = try slow.value()
        #expect(response.status == 200)
        #expect(response.text == "done")
        #expect(response.headers["connection"]?.lowercased() == "close")
        let elapsed = try shutdownSeconds.value()
        #expect(elapsed > 0.15 && elapsed < 2)
        #expect(server.inFlightRequests == 0)
        #expect(server.port == 0)
    }

    @Test(arguments: [1, 2])
    func idleServerStopsAtOnce(threads: Int) throws {
        let server = try startServer(threads: threads) { router in router.add("GET", "/health") { _ in .text("ok") } }
        let port = server.port
        let connection = try LoopbackConnection(port: port)
        #expect(try connection.request("GET", "/health").text == "ok")
        let elapsed = seconds { server.shutdown(timeout: 5) }
        #expect(elapsed < 0.5)
        #expect(eventually { !connection.isOpen })
        #expect(throws: LoopbackClientError.self) { try LoopbackConnection(port: port) }
        server.shutdown()  // a second call does nothing
    }
}
