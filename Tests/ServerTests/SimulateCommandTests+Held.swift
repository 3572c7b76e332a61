import Foundation
import Testing

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
}
