import Foundation
import HTTP
import LoopbackClient
import Synchronization
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

    /// A request whose body is still arriving when the stop begins is in flight too: it is read,
    /// handled and answered (Sandbox sends a notification once).
    @Test func requestWithItsBodyStillArrivingIsAnswered() throws {
        let server = try startServer(threads: 2) { router in
            router.add("POST", "/upload") { request in .text("\(request.body.count)") }
        }
        let client = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
        try client.sendRaw(Data("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 10000\r\n\r\n".utf8) + Data(count: 5000))
        usleep(50_000)
        let shutdownSeconds = Background { seconds { server.shutdown(timeout: 5) } }
        usleep(200_000)
        try client.sendRaw(Data(count: 5000))
        let response = try client.readResponse()
        #expect(response.status == 200)
        #expect(response.text == "10000")
        #expect(response.headers["connection"]?.lowercased() == "close")
        let elapsed = try shutdownSeconds.value()
        #expect(elapsed > 0.15 && elapsed < 2)
    }

    /// A stop still draining after its patience says so once: how many requests it waits for,
    /// and the longest it may (the rest of the drain). A stop with nothing to wait for says
    /// nothing.
    @Test func aDrainThatWaitsSaysOnWhatOnce() throws {
        let server = try startServer(threads: 2, headerTimeoutSeconds: 1, requestTimeoutSeconds: 3) { router in
            router.add("POST", "/upload") { request in .text("\(request.body.count)") }
        }
        let told = Mutex<[(Int, Duration)]>([])
        let client = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
        try client.sendRaw(Data("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: 10000\r\n\r\n".utf8) + Data(count: 5000))
        usleep(50_000)
        let stop = Background {
            server.shutdown(timeout: 10, patience: .milliseconds(200)) { requests, atMost in
                told.withLock { $0.append((requests, atMost)) }
            }
        }
        usleep(600_000)
        try client.sendRaw(Data(count: 5000))
        #expect(try client.readResponse().text == "10000")
        try stop.value()
        let said = told.withLock { $0 }
        #expect(said.count == 1 && said.first?.0 == 1, "\(said)")
        #expect(said.first.map { $0.1 <= .seconds(10) && $0.1 > .seconds(9) } == true, "\(said)")

        let idle = try startServer(threads: 1) { router in router.add("GET", "/health") { _ in .text("ok") } }
        var idleTold = 0
        idle.shutdown(timeout: 5, patience: .zero) { _, _ in idleTold += 1 }
        #expect(idleTold == 0)
    }

    /// Requests libmicrohttpd refuses itself (a head too large, a Content-Length that is not a
    /// number) leave nothing for the stop to wait for.
    @Test func serverStopsAtOnceAfterRequestsLibmicrohttpdRefused() throws {
        let server = try startServer(threads: 1) { router in router.add("GET", "/health") { _ in .text("ok") } }
        for head in [
            "GET /health HTTP/1.1\r\nHost: t\r\nX-Big: \(String(repeating: "a", count: 100_000))\r\n\r\n",
            "POST /health HTTP/1.1\r\nHost: t\r\nContent-Length: abc\r\n\r\n",
            "GET /\(String(repeating: "a", count: 100_000)) HTTP/1.1\r\nHost: t\r\n\r\n",
        ] {
            let client = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
            try? client.sendRaw(Data(head.utf8))
            _ = try? client.readResponse()
            client.close()
        }
        usleep(100_000)
        let elapsed = seconds { server.shutdown(timeout: 5) }
        #expect(elapsed < 0.5)
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

    /// Stopping while new connections keep arriving drains and ends cleanly, time after time.
    /// With an epoll worker pool, libmicrohttpd 0.9.75 aborted the process now and then in such a
    /// stop (its quiesce and a busy worker both took the listening socket out of the worker's
    /// epoll set, and whichever came second panicked): a stress program saw it in anything from
    /// none to all of its runs of 100 to 600 stops, depending on the machine's load, so this test
    /// catches that only sometimes. The workers now run on `poll`, where a quiesce only tells them.
    @Test func stopsUnderAStreamOfNewConnectionsNeverAbort() throws {
        let answered = Atomic<Int>(0)
        for _ in 0..<40 {
            let server = try startServer(threads: 16) { router in router.add("POST", "/item") { _ in .text("ok") } }
            let port = server.port
            let stop = Atomic<Bool>(false)
            let clients = (0..<24).map { _ in
                Background {
                    while !stop.load(ordering: .relaxed) {
                        // Refused or cut off once the stop begins: expected, and retried until told to stop.
                        let response = try? LoopbackConnection(port: port, timeoutSeconds: 2).request(
                            "POST", "/item", headers: ["Connection": "close"], body: Data("{}".utf8))
                        if response?.status == 200 { answered.add(1, ordering: .relaxed) }
                    }
                }
            }
            usleep(20_000)
            server.shutdown(timeout: 0.2)
            stop.store(true, ordering: .relaxed)
            for client in clients { try client.value() }
            #expect(server.inFlightRequests == 0)
        }
        #expect(answered.load(ordering: .relaxed) > 0, "the servers answered while the connections kept coming")
    }
}
