import Foundation
import HTTP
import LoopbackClient
import Synchronization
import Testing

/// A request whose client goes away while its deferred answer is being made (a storage stall
/// outlasting the client's timeout) still has its access line, saying the answer went unsent.
@Suite("Abandoned requests")
struct AbandonedRequestLogTests {
    @Test func aClientThatLeavesBeforeADeferredAnswerStillHasAnAccessLine() throws {
        let release = DispatchSemaphore(value: 0)
        let entries = Mutex<[AccessEntry]>([])
        var router = Router()
        router.addDeferred("POST", "/slow") { _, reply in
            DispatchQueue.global().async {
                release.wait()
                reply(.text("stored"))
            }
        }
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0, threads: 1, connectionTimeoutSeconds: 5)
        configuration.accessLog = { entry in entries.withLock { $0.append(entry) } }
        let server = HTTPServer(configuration: configuration, router: router)
        try server.start()
        defer { server.shutdown() }

        let client = try LoopbackConnection(port: server.port, timeoutSeconds: 1)
        #expect(throws: (any Error).self) { try client.request("POST", "/slow", body: Data("{}".utf8)) }
        client.close()
        // libmicrohttpd notices the hang-up once the answer resumes the connection, and ends the
        // request without calling the handler again: the completion callback writes the line.
        release.signal()
        #expect(eventually { entries.withLock { !$0.isEmpty } }, "no access line for the abandoned request")
        let entry = try #require(entries.withLock { $0.first })
        #expect(entry.method == "POST" && entry.path == "/slow" && entry.status == 200)
        // Lost, or timed out when libmicrohttpd notices the hang-up only later (a loaded machine).
        #expect(["connection_lost", "timed_out"].contains(entry.unsent), "\(entry)")
        #expect(entry.bytes == 0 && entry.remoteAddress == "127.0.0.1")
        #expect(entries.withLock { $0.count } == 1)
    }
}

/// A request libmicrohttpd answers itself, before any handler sees it, still has its access
/// line: status 0 (which it sent is not reported), `before_head`.
@Suite("Requests libmicrohttpd answers itself")
struct LibraryAnsweredLogTests {
    @Test(arguments: ["length", "head"])
    func aRequestTheLibraryRefusesHasAnAccessLine(refusal: String) throws {
        let entries = Mutex<[AccessEntry]>([])
        var router = Router()
        router.add("POST", "/x") { _ in .text("ok") }
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0, threads: 1)
        configuration.accessLog = { entry in entries.withLock { $0.append(entry) } }
        let server = HTTPServer(configuration: configuration, router: router)
        try server.start()
        defer { server.shutdown() }
        let client = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
        let headers =
            refusal == "length"
            ? ["Content-Length": "99999999999999999999"] : ["X-Padding": String(repeating: "a", count: 40_000)]
        let response = try? client.request("POST", "/x", headers: headers)
        #expect(response.map { $0.status >= 400 } ?? true)
        #expect(eventually { entries.withLock { !$0.isEmpty } }, "no access line for the refused request")
        let entry = try #require(entries.withLock { $0.first })
        #expect(entry.path == "/x" && entry.status == 0 && entry.unsent == "before_head", "\(entry)")
        #expect(entries.withLock { $0.count } == 1)
    }
}

/// An access line keeps at most `AccessEntry.keptCharacters` of a path or `X-Forwarded-For`.
@Suite("Long request heads in the access log")
struct LongHeadLogTests {
    @Test func aLongPathAndForwardedForAreCut() throws {
        let entries = Mutex<[AccessEntry]>([])
        var router = Router()
        router.add("GET", "/x") { _ in .text("ok") }
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0, threads: 1)
        configuration.accessLog = { entry in entries.withLock { $0.append(entry) } }
        let server = HTTPServer(configuration: configuration, router: router)
        try server.start()
        defer { server.shutdown() }
        let client = try LoopbackConnection(port: server.port, timeoutSeconds: 5)
        let long = String(repeating: "a", count: 6_000)
        let response = try client.request("GET", "/\(long)", headers: ["X-Forwarded-For": long])
        #expect(response.status == 404)
        #expect(eventually { entries.withLock { !$0.isEmpty } })
        let entry = try #require(entries.withLock { $0.first })
        #expect(entry.path == "/" + String(repeating: "a", count: AccessEntry.keptCharacters - 1) + "…")
        #expect(entry.forwardedFor == String(repeating: "a", count: AccessEntry.keptCharacters) + "…")
    }
}
