import Foundation
import LoopbackClient
import Testing
import Threads

@testable import Server

/// A stop that waits for a request in progress says so in the log, as it does for the parts
/// that stop after the HTTP server.
@Suite struct StopWaitingLogTests {
    @Test func aStopWaitingForARequestsBodySaysSo() throws {
        let fixture = try ServerFixture()
        let (service, kept) = try OperationalLogTests.service(fixture)
        let client = try LoopbackConnection(port: service.port, timeoutSeconds: 10)
        try client.sendRaw(
            Data("POST /v1/apple/notifications/demo HTTP/1.1\r\nHost: t\r\nContent-Length: 20\r\n\r\n{\"signed".utf8))
        // The server has the request in hand (the first bytes of its body) before the stop begins.
        #expect(poll(seconds: 10) { service.server.bufferedBodyBytes > 0 })
        let stopped = Locked(false)
        // A thread of its own: Dispatch's pool may be slow to grow while other tests block theirs.
        Thread {
            service.shutdown()
            stopped.withLock { $0 = true }
        }.start()
        #expect(poll(seconds: 8) { !OperationalLogTests.lines(kept, event: "stop.waiting").isEmpty })
        let waiting = OperationalLogTests.lines(kept, event: "stop.waiting")
        #expect(waiting.first?.contains("waiting for 1 request in progress to be answered") == true, "\(waiting)")
        #expect(waiting.first?.contains(" at_most_seconds=") == true, "\(waiting)")
        // The rest of the body comes: it is answered, and the stop goes on.
        try client.sendRaw(Data("Payload\": 1}".utf8))
        #expect(try client.readResponse().status == 400)
        #expect(poll(seconds: 10) { stopped.value })
    }
}
