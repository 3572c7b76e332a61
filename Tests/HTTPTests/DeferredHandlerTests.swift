import Foundation
import HTTP
import LoopbackClient
import Synchronization
import Testing

/// Handlers that answer later: the connection is suspended, the worker serves others meanwhile.
@Suite("Deferred handlers")
struct DeferredHandlerTests {
    @Test func answerFromAnotherThreadReachesTheClientOnAKeptAliveConnection() throws {
        let server = try startServer(threads: 1) { router in
            router.addDeferred("POST", "/later/{id}") { request, reply in
                let id = request.pathParameters["id"] ?? "?"
                let body = request.body
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.02) {
                    reply(.text("\(id):\(body.count)"))
                }
            }
        }
        defer { server.shutdown() }
        let connection = try LoopbackConnection(port: server.port)
        for index in 0..<5 {
            let response = try connection.request("POST", "/later/\(index)", body: Data(count: index * 10))
            #expect(response.status == 200)
            #expect(response.text == "\(index):\(index * 10)")
        }
    }

    /// A deferred handler that does not answer within the handler deadline (a storage commit
    /// stuck on a hanging disk) has its request answered 503 for it, retryable, and its
    /// connection back; its own answer, when it comes at last, is dropped.
    @Test func aHandlerThatNeverAnswersIsAnswered503AtTheDeadline() throws {
        let release = DispatchSemaphore(value: 0)
        let lateAnswers = Atomic<Int>(0)
        let server = try startServer(threads: 1, requestTimeoutSeconds: 1, handlerTimeoutSeconds: 1) { router in
            router.addDeferred("POST", "/stuck") { _, reply in
                DispatchQueue.global().async {
                    release.wait()
                    reply(.text("too late"))
                    lateAnswers.add(1, ordering: .relaxed)
                }
            }
            router.add("GET", "/health") { _ in .text("ok") }
        }
        defer { server.shutdown(timeout: 1) }
        let connection = try LoopbackConnection(port: server.port, timeoutSeconds: 10)
        var response: LoopbackResponse?
        let elapsed = try seconds { response = try connection.request("POST", "/stuck", body: Data("{}".utf8)) }
        #expect(response?.status == 503)
        #expect(response.flatMap(errorCode) == "timed_out")
        #expect(response?.headers["retry-after"] == "1")
        #expect(elapsed >= 1 && elapsed < 3, "answered once the 1 s deadline passed, at the next check")
        // Resumed (so answered) first, then counted out: the count may drop just after the read.
        // It drops while the handler is still stuck.
        #expect(eventually { server.inFlightRequests == 0 })
        // The connection is the client's again, and the handler's own answer goes nowhere.
        #expect(try connection.request("GET", "/health").text == "ok")
        release.signal()
        #expect(eventually { lateAnswers.load(ordering: .relaxed) == 1 })
        #expect(try connection.request("GET", "/health").text == "ok")
    }

    @Test func oneWorkerServesOthersWhileAnswersArePending() throws {
        let release = DispatchSemaphore(value: 0)
        let server = try startServer(threads: 1) { router in
            router.addDeferred("GET", "/wait") { _, reply in
                DispatchQueue.global().async {
                    release.wait()
                    reply(.text("released"))
                }
            }
            router.add("GET", "/health") { _ in .text("ok") }
        }
        defer { server.shutdown() }
        let port = server.port
        let waiting = (0..<4).map { _ in Background { try LoopbackConnection(port: port).request("GET", "/wait") } }
        #expect(eventually { server.inFlightRequests == 4 })
        // The single worker is free: other requests are answered while four wait.
        #expect(try LoopbackConnection(port: port).request("GET", "/health").text == "ok")
        for _ in 0..<4 { release.signal() }
        for request in waiting { #expect(try request.value().text == "released") }
        #expect(eventually { server.inFlightRequests == 0 })
    }

    @Test func immediateReplyInsideTheHandlerWorks() throws {
        let server = try startServer(threads: 2) { router in
            router.addDeferred("GET", "/now") { _, reply in reply(.text("now", status: 202)) }
        }
        defer { server.shutdown() }
        let connection = try LoopbackConnection(port: server.port)
        for _ in 0..<20 {
            let response = try connection.request("GET", "/now")
            #expect(response.status == 202)
            #expect(response.text == "now")
        }
    }

    @Test func shutdownWaitsForPendingAnswers() throws {
        let server = try startServer(threads: 2) { router in
            router.addDeferred("GET", "/slow") { _, reply in
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { reply(.text("done")) }
            }
        }
        let port = server.port
        let slow = Background { try LoopbackConnection(port: port).request("GET", "/slow") }
        #expect(eventually { server.inFlightRequests == 1 })
        server.shutdown(timeout: 5)
        let response = try slow.value()
        #expect(response.status == 200)
        #expect(response.text == "done")
    }

    /// A handler that does not answer within the shutdown's wait: its request is answered 503
    /// (libmicrohttpd would abort the process if stopped with the connection suspended), and
    /// the handler's late answer is dropped.
    @Test func shutdownAnswers503ForAHandlerThatNeverAnswers() throws {
        let observer = RecordingObserver()
        let late = DispatchSemaphore(value: 0)
        let server = try startServer(threads: 2, observer: observer) { router in
            router.addDeferred("GET", "/stuck") { _, reply in
                DispatchQueue.global().asyncAfter(deadline: .now() + 2) {
                    reply(.text("too late"))
                    late.signal()
                }
            }
        }
        let port = server.port
        let stuck = Background { try LoopbackConnection(port: port).request("GET", "/stuck") }
        #expect(eventually { server.inFlightRequests == 1 })
        let elapsed = seconds { server.shutdown(timeout: 0.3) }
        #expect(elapsed < 1.5)
        let response = try stuck.value()
        #expect(response.status == 503)
        #expect(errorCode(response) == "shutting_down")
        #expect(response.headers["retry-after"] == "1")
        #expect(server.inFlightRequests == 0)
        // The handler answers after the daemon is gone: dropped, nothing resumed.
        #expect(late.wait(timeout: .now() + 5) == .success)
        #expect(observer.finished == [.init(method: "GET", route: "/stuck", status: 503)])
    }

    /// A deferred request that arrives on a kept-alive connection while the shutdown sends its
    /// 503s is answered 503 at once, not suspended: a connection suspended then would make
    /// libmicrohttpd abort the process when it stops. (A client that reads only the start of a
    /// large answer keeps the shutdown waiting long enough for the request to arrive.)
    @Test func aDeferredRequestDuringTheLastWaitIsNotSuspended() throws {
        let server = try startServer(threads: 2) { router in
            router.addDeferred("GET", "/stuck") { _, reply in
                DispatchQueue.global().asyncAfter(deadline: .now() + 5) { reply(.text("too late")) }
            }
            router.add("GET", "/fast") { _ in .text("ok") }
            router.add("GET", "/big") { _ in .text(String(repeating: "x", count: 64 << 20)) }
        }
        let port = server.port
        let kept = try LoopbackConnection(port: port)
        #expect(try kept.request("GET", "/fast").status == 200)
        let slow = try LoopbackConnection(port: port)
        try slow.sendRaw(slow.encoded("GET", "/big"))
        var first: UInt8 = 0
        #expect(recv(slow.fileDescriptor, &first, 1, 0) == 1, "the large answer has begun")
        let stuck = Background { try LoopbackConnection(port: port).request("GET", "/stuck") }
        #expect(eventually { server.inFlightRequests == 1 })
        let stopping = Background { server.shutdown(timeout: 0.3) }
        // The first 503 goes out when the drain ends; the request comes in the wait after it
        // (a second, held by the large answer), not after a fixed sleep a loaded host outlasts.
        #expect(try stuck.value().status == 503)
        let late = try kept.request("GET", "/stuck")
        #expect(late.status == 503)
        #expect(errorCode(late) == "shutting_down")
        try stopping.value()
        withExtendedLifetime(slow) {}
    }
}
