import Foundation
import Testing

@testable import Server
@testable import Tools

extension SimulateCommandTests {
    /// A notification the server keeps held (signed for a bundle ID the app does not accept)
    /// was not applied: the story fails and says so, rather than exiting 0.
    @Test func aStoryWhoseNotificationIsHeldFails() throws {
        defer { service.shutdown() }
        let result = try simulate(["subscribe", "--user", "held-user", "--bundle-id", "com.other.app"])
        #expect(result.status == 1, "\(result.output)")
        #expect(
            result.output.contains(
                "RevenueDot kept the notification held, not applied: app demo does not accept its bundle ID or environment"),
            "\(result.output)")
        #expect(try events(of: "held-user").isEmpty)
    }

    /// A story goes on in its subscription's environment: a Production subscription's next step
    /// without `--environment` is signed for Production (in the default Sandbox it was held).
    @Test func aStoryGoesOnInItsSubscriptionsEnvironment() throws {
        defer { service.shutdown() }
        let root = directory.path(".revenuedot/dev-ca/root.pem")
        let config = try directory.write(
            "both.json",
            """
            {"listen": "127.0.0.1:0", "database": "sqlite:both.sqlite",
             "apps": [{"id": "demo", "bundleId": "com.example.app", "appAppleId": 1234,
                       "environments": ["Sandbox", "Production"], "rootCertificates": ["\(root)"],
                       "trackNewPurchasesFromServerNotifications": true, "secretApiKey": "sk_sim", "publicApiKey": "pk_sim"}]}
            """)
        let both = try RevenueDotService(quietly: try ConfigLoader.load(path: config))
        try both.start()
        defer { both.shutdown() }
        func step(_ arguments: [String]) throws -> (status: Int32, output: String) {
            try Self.simulate(arguments, port: both.port, config: config, in: directory.path(""))
        }
        let subscribed = try step(["subscribe", "--user", "uma", "--environment", "Production"])
        #expect(subscribed.status == 0, "\(subscribed.output)")
        let cancelled = try step(["cancel", "--user", "uma"])
        #expect(cancelled.status == 0, "\(cancelled.output)")
        #expect(!cancelled.output.contains("held"), "\(cancelled.output)")
    }
}
