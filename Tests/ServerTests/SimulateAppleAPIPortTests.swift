import Foundation
import HTTP
import Testing

/// `simulate apple-api` on a port another socket holds: one plain line, exit 1.
@Suite struct SimulateAppleAPIPortTests {
    @Test func aPortInUseIsOnePlainLine() throws {
        let directory = TestDirectory("simulate-port")
        let made = try runCLI(["init"], in: directory.path(""))
        #expect(made.status == 0, "\(made.output)")
        let taken = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, threads: 1), router: Router(), observer: nil)
        try taken.start()
        defer { taken.shutdown() }
        let result = try runCLI(["simulate", "apple-api", "--port", "\(taken.port)"], in: directory.path(""))
        #expect(result.status == 1)
        #expect(
            result.output.hasPrefix("revenuedot simulate: cannot serve the App Store Server API: Could not listen on"),
            "\(result.output)")
        #expect(!result.output.contains("HTTPServerError"), "\(result.output)")
        #expect(result.output.split(separator: "\n").count == 1, "\(result.output)")
    }
}
