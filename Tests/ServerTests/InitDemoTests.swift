import Foundation
import Testing

@testable import Server

/// The configuration `revenuedot init` writes talks to the local App Store simulator, so it is
/// not held to Apple's Sandbox rate limits (about 5 imported rows a second).
@Suite struct InitDemoTests {
    @Test func theDemoCallsTheLocalSimulatorWithoutApplesRateLimits() throws {
        let directory = TestDirectory("init-demo")
        let made = try runCLI(["init"], in: directory.path(""))
        #expect(made.status == 0, "\(made.output)")
        let config = try ConfigLoader.load(path: directory.path("revenuedot.json"))
        #expect(config.appleAPI.requestsPerSecond == 0)
        #expect(config.appleAPI.baseURLs[.sandbox]?.host == "127.0.0.1")
    }
}
