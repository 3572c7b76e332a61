import Foundation
import LoopbackClient
import Testing

/// Requests a load generator encodes before it knows which connection sends them.
@Suite struct PreparedRequestTests {
    /// Encoded for a port alone, a request is the bytes a connection to that port would encode,
    /// and any connection to it sends them and gets its answer, one after another.
    @Test func encodedForAPortIsWhatEveryConnectionSends() throws {
        let server = try startServer { router in
            router.add("POST", "/v1/items/{id}") { request in
                .text("\(request.pathParameters["id"] ?? "?") \(String(decoding: request.body, as: UTF8.self))")
            }
        }
        defer { server.shutdown(timeout: 1) }
        let body = Data(#"{"signedPayload":"x.y.z"}"#.utf8)
        let headers = ["Content-Type": "application/json"]
        let prepared = (1...3).map { index in
            LoopbackConnection.encoded("POST", "/v1/items/\(index)", port: server.port, headers: headers, body: body)
        }
        let first = try LoopbackConnection(port: server.port)
        let second = try LoopbackConnection(port: server.port)
        #expect(prepared[0] == first.encoded("POST", "/v1/items/1", headers: headers, body: body))
        let answers = try [first, second, first].enumerated().map { index, connection in
            try connection.send(prepared: prepared[index])
        }
        #expect(answers.map(\.status) == [200, 200, 200])
        let text = String(decoding: body, as: UTF8.self)
        #expect(answers.map { String(decoding: $0.body, as: UTF8.self) } == (1...3).map { "\($0) \(text)" })
    }
}
