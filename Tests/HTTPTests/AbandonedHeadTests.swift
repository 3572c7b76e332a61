import Foundation
import HTTP
import LoopbackClient
import Testing

/// A request libmicrohttpd gives up on before handing its head over (here: a query of more
/// arguments than its per-connection buffer holds) leaves nothing behind: no request counted
/// open, so a stop does not wait out its drain, and an access line all the same.
@Suite("Requests libmicrohttpd gives up on before their head")
struct AbandonedHeadTests {
    static let manyArguments = "/anything?" + Array(repeating: "a", count: 1500).joined(separator: "&")

    @Test func aQueryTooManyArgumentsLeavesNoRequestOpenAndIsLogged() throws {
        var router = Router()
        router.add("GET", "/health") { _ in .text("ok") }
        let logged = try AccessLoggedServer(router)
        for _ in 0..<20 {
            let client = try LoopbackConnection(port: logged.server.port, timeoutSeconds: 5)
            try? client.sendRaw(Data("GET \(Self.manyArguments) HTTP/1.1\r\nHost: t\r\n\r\n".utf8))
            _ = try? client.readResponse()
            client.close()
        }
        #expect(eventually { logged.entries.count == 20 }, "\(logged.entries.count) access lines")
        #expect(
            logged.entries.allSatisfy { $0.path == "/anything" && $0.status == 0 },
            "\(logged.entries.first.map { "\($0)" } ?? "")")
        // Still serving, and nothing open: the stop is at once, not the 30 s drain.
        #expect(try LoopbackConnection(port: logged.server.port).request("GET", "/health").text == "ok")
        let began = ContinuousClock.now
        logged.server.shutdown()
        #expect(ContinuousClock.now - began < .seconds(2))
    }
}
