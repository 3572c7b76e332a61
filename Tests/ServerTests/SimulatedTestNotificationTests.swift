import AppStore
import AppStoreServerAPISimulator
import Foundation
import Storage
import Synchronization
import Testing

@testable import Server
@testable import Tools

/// `simulate apple-api` sends a requested TEST notification to the configured server, as App
/// Store sends it to the URL in App Store Connect, and reports the attempt.
@Suite("Simulated TEST notifications")
struct SimulatedTestNotificationTests {
    @Test func aRequestedTestNotificationIsDeliveredStoredAndReported() throws {
        let target = Mutex<SimulatedAppStore.Delivery?>(nil)
        let world = try AppleAPIWorld(deliver: { app, signed in target.withLock { $0 }?(app, signed) ?? .noResponse })
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        try service.start()
        var config = try world.config()
        config.listen.port = service.port
        target.withLock { $0 = SimulateCommand.delivery(to: config, apps: config.apps) }
        let client = try AppleAPIClients.client(for: config.apps[0], environment: .sandbox, config: config.appleAPI)

        let token = try client.requestTestNotification()
        let status = try client.testNotificationStatus(token)
        #expect(status.notification?.notification.payload.notificationType == .test)
        #expect(status.attempts.map(\.sendAttemptResult) == [.success])
        let uuid = try #require(status.notification?.notification.payload.notificationUUID)
        service.shutdown()
        let reader = try StoreReader(path: world.databasePath)
        defer { reader.close() }
        #expect(try reader.notification(uuid: uuid)?.notificationType == "TEST")

        // With the server gone, the attempt says so, and the history keeps it as a failure.
        let unanswered = try client.testNotificationStatus(try client.requestTestNotification())
        #expect(unanswered.attempts.map(\.sendAttemptResult) == [.noResponse])
    }
}
