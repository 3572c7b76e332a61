import Foundation
import Testing

@testable import Tools

extension SimulateCommandTests {
    /// A story goes on in its subscription's environment: once the app no longer accepts it, the
    /// next step is refused before anything is signed, and the story is left as it was.
    @Test func aStoryInAnEnvironmentTheAppNoLongerAcceptsIsRefused() throws {
        defer { service.shutdown() }
        #expect(try simulate(["subscribe", "--user", "sam"]).status == 0)
        let before = try simulated("sam")
        let production = try directory.write(
            "production.json",
            try String(contentsOfFile: configPath, encoding: .utf8).replacingOccurrences(
                of: #""environments": ["Sandbox"]"#, with: #""environments": ["Production"]"#))
        chmod(production, 0o600)
        let renewed = try Self.simulate(
            ["renew", "--user", "sam"], port: service.port, config: production, in: directory.path(""))
        #expect(renewed.status == 1)
        #expect(
            renewed.output.contains(
                #"sam's subscription is in Sandbox, which app "demo" no longer accepts (its environments: Production): its notifications would be held"#
            ), "\(renewed.output)")
        #expect(try simulated("sam") == before)
    }
}
