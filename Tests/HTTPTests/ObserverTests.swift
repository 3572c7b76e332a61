import Foundation
import HTTP
import LoopbackClient
import Testing

@Suite("Server observer")
struct ObserverTests {
    @Test func seesRoutesStatusesAndConnections() throws {
        let observer = RecordingObserver()
        let server = try startServer(maxBodyBytes: 100, observer: observer) { router in
            router.add("GET", "/v1/items/{id}") { _ in .text("item") }
            router.add("POST", "/v1/items/{id}") { _ in HTTPResponse(status: 204) }
        }
        defer { server.shutdown(timeout: 1) }
        let first = try LoopbackConnection(port: server.port)
        let second = try LoopbackConnection(port: server.port)
        #expect(try first.request("GET", "/v1/items/1").status == 200)
        #expect(try first.request("GET", "/missing").status == 404)
        #expect(try second.request("PUT", "/v1/items/2").status == 405)
        #expect(try second.request("POST", "/v1/items/3", body: Data(count: 10)).status == 204)
        #expect(try second.request("POST", "/v1/items/4", body: Data(count: 101)).status == 413)

        #expect(
            observer.finished == [
                .init(method: "GET", route: "/v1/items/{id}", status: 200),
                .init(method: "GET", route: "unmatched", status: 404),
                .init(method: "PUT", route: "unmatched", status: 405),
                .init(method: "POST", route: "/v1/items/{id}", status: 204),
                .init(method: "POST", route: "/v1/items/{id}", status: 413),
            ])
        #expect(observer.opened == 2)
        #expect(eventually { server.openConnections == 1 })  // the 413 closed the second connection
        first.close()
        #expect(eventually { observer.closed == 2 && server.openConnections == 0 })
    }
}
