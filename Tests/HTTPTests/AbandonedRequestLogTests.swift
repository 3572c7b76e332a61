import Foundation
import HTTP
import LoopbackClient
import Synchronization
import Testing

/// A server on a loopback port with one worker, and the access entries it logs.
final class AccessLoggedServer: Sendable {
    let server: HTTPServer
    private let kept: Kept

    private final class Kept: Sendable {
        let entries = Mutex<[AccessEntry]>([])
    }

    /// Started with `router`; the configuration's idle timeout and deadlines unless given.
    init(
        _ router: Router, connectionTimeoutSeconds: Int? = nil, headerTimeoutSeconds: Int? = nil,
        requestTimeoutSeconds: Int? = nil
    ) throws {
        let kept = Kept()
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0, threads: 1)
        if let connectionTimeoutSeconds { configuration.connectionTimeoutSeconds = connectionTimeoutSeconds }
        if let headerTimeoutSeconds { configuration.headerTimeoutSeconds = headerTimeoutSeconds }
        if let requestTimeoutSeconds { configuration.requestTimeoutSeconds = requestTimeoutSeconds }
        configuration.accessLog = { entry in kept.entries.withLock { $0.append(entry) } }
        self.kept = kept
        server = HTTPServer(configuration: configuration, router: router)
        try server.start()
    }

    /// The entries logged so far.
    var entries: [AccessEntry] { kept.entries.withLock { $0 } }

    /// The first entry, once one is logged.
    func firstEntry() throws -> AccessEntry {
        #expect(eventually { !entries.isEmpty }, "no access line")
        return try #require(entries.first)
    }
}

/// A request whose client goes away while its deferred answer is being made (a storage stall
/// outlasting the client's timeout) still has its access line, saying the answer went unsent.
@Suite("Abandoned requests")
struct AbandonedRequestLogTests {
    @Test func aClientThatLeavesBeforeADeferredAnswerStillHasAnAccessLine() throws {
        let release = DispatchSemaphore(value: 0)
        var router = Router()
        router.addDeferred("POST", "/slow") { _, reply in
            DispatchQueue.global().async {
                release.wait()
                reply(.text("stored"))
            }
        }
        let logged = try AccessLoggedServer(router, connectionTimeoutSeconds: 5)
        defer { logged.server.shutdown() }

        let client = try LoopbackConnection(port: logged.server.port, timeoutSeconds: 1)
        #expect(throws: (any Error).self) { try client.request("POST", "/slow", body: Data("{}".utf8)) }
        client.close()
        // libmicrohttpd notices the hang-up once the answer resumes the connection, and ends the
        // request without calling the handler again: the completion callback writes the line.
        release.signal()
        let entry = try logged.firstEntry()
        #expect(entry.method == "POST" && entry.path == "/slow" && entry.status == 200)
        // Lost, or timed out when libmicrohttpd notices the hang-up only later (a loaded machine).
        #expect(["connection_lost", "timed_out"].contains(entry.unsent), "\(entry)")
        #expect(entry.bytes == 0 && entry.remoteAddress == "127.0.0.1")
        #expect(logged.entries.count == 1)
    }
}

/// A request the server cuts off at its deadline (trickled a byte at a time, never silent for
/// the idle timeout) is logged as timed out, not as the client leaving.
@Suite("Requests cut off at a deadline")
struct CutOffRequestLogTests {
    @Test(arguments: ["body", "head"])
    func aRequestCutOffAtTheDeadlineIsLoggedAsTimedOut(trickled: String) throws {
        var router = Router()
        router.add("POST", "/upload") { request in .text("\(request.body.count)") }
        let logged = try AccessLoggedServer(
            router, connectionTimeoutSeconds: 10, headerTimeoutSeconds: 1, requestTimeoutSeconds: 2)
        defer { logged.server.shutdown() }
        let client = try LoopbackConnection(port: logged.server.port, timeoutSeconds: 5)
        let (head, byte) =
            trickled == "body"
            ? ("POST /upload HTTP/1.1\r\nHost: test\r\nContent-Length: 1000\r\n\r\n", "a")
            : ("POST /upload HTTP/1.1\r\nHost: test\r\n", "X")
        try client.sendRaw(Data(head.utf8))
        let started = Date()
        while client.isOpen, (try? client.sendRaw(Data(byte.utf8))) != nil, Date().timeIntervalSince(started) < 8 {
            Thread.sleep(forTimeInterval: 0.2)
        }
        let entry = try logged.firstEntry()
        #expect(entry.path == "/upload" && entry.status == 0 && entry.unsent == "timed_out", "\(entry)")
        #expect(logged.entries.count == 1)
    }
}

/// A request libmicrohttpd answers itself, before any handler sees it, still has its access
/// line: status 0 (which it sent is not reported), `before_head`.
@Suite("Requests libmicrohttpd answers itself")
struct LibraryAnsweredLogTests {
    @Test(arguments: ["length", "head"])
    func aRequestTheLibraryRefusesHasAnAccessLine(refusal: String) throws {
        var router = Router()
        router.add("POST", "/x") { _ in .text("ok") }
        let logged = try AccessLoggedServer(router)
        defer { logged.server.shutdown() }
        let client = try LoopbackConnection(port: logged.server.port, timeoutSeconds: 5)
        let headers =
            refusal == "length"
            ? ["Content-Length": "99999999999999999999"] : ["X-Padding": String(repeating: "a", count: 40_000)]
        let response = try? client.request("POST", "/x", headers: headers)
        #expect(response.map { $0.status >= 400 } ?? true)
        let entry = try logged.firstEntry()
        #expect(entry.path == "/x" && entry.status == 0 && entry.unsent == "before_head", "\(entry)")
        #expect(logged.entries.count == 1)
    }
}

/// An access line keeps at most `AccessEntry.keptCharacters` of a path or `X-Forwarded-For`.
@Suite("Long request heads in the access log")
struct LongHeadLogTests {
    @Test func aLongPathAndForwardedForAreCut() throws {
        var router = Router()
        router.add("GET", "/x") { _ in .text("ok") }
        let logged = try AccessLoggedServer(router)
        defer { logged.server.shutdown() }
        let client = try LoopbackConnection(port: logged.server.port, timeoutSeconds: 5)
        let long = String(repeating: "a", count: 6_000)
        let response = try client.request("GET", "/\(long)", headers: ["X-Forwarded-For": long])
        #expect(response.status == 404)
        let entry = try logged.firstEntry()
        #expect(entry.path == "/" + String(repeating: "a", count: AccessEntry.keptCharacters - 1) + "…")
        #expect(entry.forwardedFor == String(repeating: "a", count: AccessEntry.keptCharacters) + "…")
    }
}
