import Foundation
import HTTP
import LoopbackClient
import Synchronization

/// Starts a server on an ephemeral loopback port with two workers, as most tests want.
func startServer(
    host: String = "127.0.0.1", threads: Int = 2, maxBodyBytes: Int = 1 << 20, maxBufferedBodyBytes: Int = 64 << 20,
    connectionTimeoutSeconds: Int = 10, headerTimeoutSeconds: Int = 10, requestTimeoutSeconds: Int = 30,
    handlerTimeoutSeconds: Int = 60, connectionsPerIP: Int = 0, observer: (any HTTPServerObserver)? = nil,
    routes: (inout Router) -> Void
) throws -> HTTPServer {
    var router = Router()
    routes(&router)
    let configuration = HTTPServerConfiguration(
        host: host, port: 0, threads: threads, maxBodyBytes: maxBodyBytes, maxBufferedBodyBytes: maxBufferedBodyBytes,
        connectionTimeoutSeconds: connectionTimeoutSeconds, headerTimeoutSeconds: headerTimeoutSeconds,
        requestTimeoutSeconds: requestTimeoutSeconds, handlerTimeoutSeconds: handlerTimeoutSeconds,
        connectionsPerIP: connectionsPerIP)
    let server = HTTPServer(configuration: configuration, router: router, observer: observer)
    try server.start()
    return server
}

/// A chunked `POST /v1/upload` carrying `body` in pieces of `chunkSize` bytes.
func chunkedRequest(_ body: Data, chunkSize: Int, path: String = "/v1/upload") -> Data {
    var bytes = Data("POST \(path) HTTP/1.1\r\nHost: test\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
    var offset = 0
    while offset < body.count {
        let piece = body[offset..<min(offset + chunkSize, body.count)]
        bytes.append(Data("\(String(piece.count, radix: 16))\r\n".utf8))
        bytes.append(piece)
        bytes.append(Data("\r\n".utf8))
        offset += piece.count
    }
    bytes.append(Data("0\r\n\r\n".utf8))
    return bytes
}

/// Blocking work on a thread of its own, started at once; `value()` waits for its result.
/// Tests use it instead of tasks so that blocking calls never wait for Swift concurrency's few threads.
final class Background<Value: Sendable>: Sendable {
    private let result = Mutex<Result<Value, any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () throws -> Value) {
        Thread { [self] in
            let outcome = Result { try body() }
            self.result.withLock { $0 = outcome }
            self.done.signal()
        }.start()
    }

    func value() throws -> Value {
        done.wait()
        done.signal()
        return try result.withLock { $0! }.get()
    }
}

/// Seconds taken by `body`.
func seconds(_ body: () throws -> Void) rethrows -> Double {
    let started = ContinuousClock.now
    try body()
    let elapsed = ContinuousClock.now - started
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
}

/// Polls `condition` every 10 ms for up to `timeout` seconds; returns whether it became true.
/// Every caller waits for something that must happen, so the wait costs only a failing test:
/// ten seconds, as the server tests' `poll`, covers a host loaded by the whole suite.
func eventually(timeout: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
    while ContinuousClock.now < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}

/// The `{"error": {"code": ...}}` code of a JSON error body, or nil.
func errorCode(_ response: LoopbackResponse) -> String? {
    let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]
    return (object?["error"] as? [String: Any])?["code"] as? String
}

/// An observer that remembers everything it is told.
final class RecordingObserver: HTTPServerObserver {
    struct Finished: Equatable {
        var method: String
        var route: String
        var status: Int
    }

    private let state = Mutex<(finished: [Finished], opened: Int, closed: Int, cut: Int)>(([], 0, 0, 0))

    var finished: [Finished] { state.withLock { $0.finished } }
    var opened: Int { state.withLock { $0.opened } }
    var closed: Int { state.withLock { $0.closed } }
    var cut: Int { state.withLock { $0.cut } }

    func requestFinished(method: String, route: String, status: Int, seconds: Double) {
        state.withLock { $0.finished.append(Finished(method: method, route: route, status: status)) }
    }

    func connectionOpened() {
        state.withLock { $0.opened += 1 }
    }

    func connectionClosed() {
        state.withLock { $0.closed += 1 }
    }

    func connectionCutOff() {
        state.withLock { $0.cut += 1 }
    }
}
