import AppStore
import Foundation
import HTTP
import JSON
import Threads

@testable import Server
@testable import Tools

/// A real HTTP server on a loopback port standing in for an app's backend: it records every
/// webhook it receives and answers with the status `answer` picks for it.
final class WebhookReceiver: Sendable {
    struct Received: Sendable {
        var headers: [String: String]
        var body: Data
        var at: Date

        var json: JSONValue { (try? JSONValue(parsing: body)) ?? .null }
        var event: JSONValue { json["event"] ?? .null }
        var id: String { event["id"]?.stringValue ?? "" }
        var type: String { event["type"]?.stringValue ?? "" }
    }

    private let server: HTTPServer
    private let log = Locked<[Received]>([])
    let port: UInt16
    var url: String { "http://127.0.0.1:\(port)/hooks" }

    /// - Parameter answer: the status for a request, given how many requests came before it.
    init(port: UInt16 = 0, answer: @escaping @Sendable (_ index: Int, _ body: Data) -> Int = { _, _ in 200 }) throws {
        let log = log
        var router = Router()
        router.add("POST", "/hooks") { request in
            let index = log.withLock { received -> Int in
                received.append(Received(headers: request.headers, body: request.body, at: Date()))
                return received.count - 1
            }
            return HTTPResponse(status: answer(index, request.body))
        }
        var configuration = HTTPServerConfiguration()
        configuration.port = port
        configuration.threads = 8
        server = HTTPServer(configuration: configuration, router: router)
        self.port = try server.start()
    }

    func stop() { server.shutdown() }

    var received: [Received] { log.withLock { $0 } }

    /// Waits until `condition` holds for what was received, or `seconds` pass.
    @discardableResult
    func wait(seconds: Double = 10, until condition: ([Received]) -> Bool) -> [Received] {
        var now = received
        poll(seconds: seconds) {
            now = received
            return condition(now)
        }
        return now
    }
}
