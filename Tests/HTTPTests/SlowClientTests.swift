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

    /// Sends `first`, then one byte of `trickle` every 0.2 s, and returns how long the server
    /// kept the connection (nil if it was still open after `patience` seconds).
    private func trickle(_ first: String, _ trickle: String, port: UInt16, patience: Double = 8) throws -> Double? {
        let connection = try LoopbackConnection(port: port, timeoutSeconds: 5)
        let started = Date()
        try connection.sendRaw(Data(first.utf8))
        for byte in trickle.utf8.cycled() {
            Thread.sleep(forTimeInterval: 0.2)
            if (try? connection.sendRaw(Data([byte]))) == nil || !connection.isOpen {
                return Date().timeIntervalSince(started)
            }
            if Date().timeIntervalSince(started) > patience { return nil }
        }
        return nil
    }

    /// A client that keeps sending, a byte at a time, is cut off at the request deadline
    /// (2 s here), although it is never silent for the idle timeout (10 s); others are served.
    @Test func tricklingClientsAreCutOffAtTheRequestDeadline() throws {
        let observer = RecordingObserver()
        let server = try startServer(threads: 2, requestTimeoutSeconds: 2, observer: observer) { router in
            router.add("POST", "/v1/upload") { request in .text("\(request.body.count)") }
            router.add("GET", "/health") { _ in .text("ok") }
        }
        defer { server.shutdown(timeout: 1) }
        let port = server.port
        let headers = Background { try self.trickle("POST /v1/upload HTTP/1.1\r\nHost: test\r\n", "X-Pad: aaaa\r\n", port: port) }
        let body = Background {
            try self.trickle("POST /v1/upload HTTP/1.1\r\nHost: test\r\nContent-Length: 1000\r\n\r\n", "a", port: port)
        }
        let other = try LoopbackConnection(port: port)
        #expect(try other.request("GET", "/health").status == 200)
        // Kept alive, it would owe its next request from now, and be cut off in 2 s as well.
        other.close()
        for kept in [try headers.value(), try body.value()] {
            let seconds = try #require(kept, "the trickling connection was never cut off")
            #expect(seconds > 1.8 && seconds < 4.5, "cut off after \(seconds) s")
        }
        #expect(observer.cut == 2)
        #expect(eventually { server.openConnections == 0 })
        // The body's share of the budget (its declared 1000 bytes) is back.
        #expect(server.bufferedBodyBytes == 0)
    }

    /// A client that trickles its headers is cut off at the header deadline (1 s here), well
    /// before the request deadline (30 s), although it keeps sending; one whose headers are in
    /// and that trickles its body owes only the request deadline, and is still open.
    @Test func tricklingHeadersAreCutOffAtTheHeaderDeadline() throws {
        let observer = RecordingObserver()
        let server = try startServer(threads: 2, headerTimeoutSeconds: 1, requestTimeoutSeconds: 30, observer: observer) {
            router in
            router.add("POST", "/v1/upload") { request in .text("\(request.body.count)") }
            router.add("GET", "/health") { _ in .text("ok") }
        }
        defer { server.shutdown(timeout: 1) }
        let port = server.port
        let headers = Background {
            try self.trickle("POST /v1/upload HTTP/1.1\r\nHost: test\r\n", "X-Pad: aaaa\r\n", port: port, patience: 4)
        }
        let body = Background {
            try self.trickle(
                "POST /v1/upload HTTP/1.1\r\nHost: test\r\nContent-Length: 1000\r\n\r\n", "a", port: port, patience: 2.5)
        }
        let other = try LoopbackConnection(port: port)
        #expect(try other.request("GET", "/health").status == 200)
        other.close()
        let headerSeconds = try #require(try headers.value(), "the trickling headers were never cut off")
        #expect(headerSeconds > 0.8 && headerSeconds < 3, "cut off after \(headerSeconds) s")
        #expect(try body.value() == nil, "the body was cut off at the header deadline")
        #expect(observer.cut == 1)
    }

    /// One quick request buys no time: the next request on the connection owes the deadline
    /// again from its answer, so trickling it is cut off as well.
    @Test func aQuickRequestDoesNotExemptTheNextOne() throws {
        let observer = RecordingObserver()
        let server = try startServer(threads: 2, requestTimeoutSeconds: 2, observer: observer) { router in
            router.add("GET", "/health") { _ in .text("ok") }
        }
        defer { server.shutdown(timeout: 1) }
        let connection = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
        #expect(try connection.request("GET", "/health").status == 200)
        let answered = Date()
        try connection.sendRaw(Data("GET /health HTTP/1.1\r\nHost: test\r\n".utf8))
        var open = true
        while open, Date().timeIntervalSince(answered) < 8 {
            Thread.sleep(forTimeInterval: 0.2)
            open = (try? connection.sendRaw(Data("X".utf8))) != nil && connection.isOpen
        }
        let seconds = Date().timeIntervalSince(answered)
        #expect(!open)
        #expect(seconds > 1.8 && seconds < 4.5, "cut off after \(seconds) s")
        #expect(observer.cut == 1)
    }

    /// A client that takes its answer a little at a time is never silent for the idle timeout
    /// (30 s here), yet it is cut off at the request deadline (2 s), counted from the answer's
    /// queueing; others are served meanwhile.
    @Test func aClientTakingItsAnswerSlowlyIsCutOffAtTheRequestDeadline() throws {
        let observer = RecordingObserver()
        let server = try startServer(
            threads: 2, connectionTimeoutSeconds: 30, requestTimeoutSeconds: 2, observer: observer
        ) { router in
            router.add("GET", "/big") { _ in HTTPResponse(status: 200, body: Data(count: 32 << 20)) }
            router.add("GET", "/health") { _ in .text("ok") }
        }
        defer { server.shutdown(timeout: 1) }
        let slow = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
        try slow.sendRaw(Data("GET /big HTTP/1.1\r\nHost: test\r\n\r\n".utf8))
        let started = Date()
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        var taken = 0
        // 16 KiB every 50 ms: 32 MiB would take 100 s.
        while observer.cut == 0, Date().timeIntervalSince(started) < 8 {
            let read = recv(slow.fileDescriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if read > 0 { taken += read }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let seconds = Date().timeIntervalSince(started)
        #expect(observer.cut == 1)
        #expect(seconds > 1.8 && seconds < 4.5, "cut off after \(seconds) s, \(taken) bytes taken")
        #expect(taken > 0 && taken < 32 << 20)
        let other = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
        #expect(try other.request("GET", "/health").status == 200)
        other.close()
        #expect(eventually { server.openConnections == 0 })
    }

    /// A request that is in owes nothing while its handler works: a deferred answer that takes
    /// longer than the request deadline (but not the handler's, 60 s) still arrives, on a
    /// connection that stays open.
    @Test func aSlowAnswerIsNotCutOff() throws {
        let observer = RecordingObserver()
        let server = try startServer(threads: 2, requestTimeoutSeconds: 1, observer: observer) { router in
            router.addDeferred("GET", "/slow") { _, reply in
                DispatchQueue.global().asyncAfter(deadline: .now() + 2.5) { reply(.text("late")) }
            }
        }
        defer { server.shutdown(timeout: 1) }
        let connection = try LoopbackConnection(port: server.port, timeoutSeconds: 10)
        let response = try connection.request("GET", "/slow")
        #expect(response.status == 200)
        #expect(response.text == "late")
        #expect(connection.isOpen)
        #expect(observer.cut == 0)
    }

    /// The deadline counts from the previous answer: a kept-alive connection that sends a
    /// request now and then is never cut off, however long it lives.
    @Test func keptAliveConnectionsOweOnlyTheirNextRequest() throws {
        let observer = RecordingObserver()
        let server = try startServer(threads: 2, requestTimeoutSeconds: 1, observer: observer) { router in
            router.add("GET", "/health") { _ in .text("ok") }
        }
        defer { server.shutdown(timeout: 1) }
        let connection = try LoopbackConnection(port: server.port)
        for _ in 0..<8 {
            #expect(try connection.request("GET", "/health").status == 200)
            Thread.sleep(forTimeInterval: 0.5)
        }
        #expect(connection.isOpen)
        #expect(observer.cut == 0)
    }
}

extension Sequence {
    /// The elements over and over.
    fileprivate func cycled() -> AnySequence<Element> {
        let all = Array(self)
        return AnySequence { () -> AnyIterator<Element> in
            var index = 0
            return AnyIterator {
                defer { index = (index + 1) % all.count }
                return all[index]
            }
        }
    }
}
