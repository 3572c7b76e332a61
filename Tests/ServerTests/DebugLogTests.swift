import Foundation
import LoopbackClient
import Testing

@testable import Server

/// `log.level: debug` names every notification stored or repeated; the default level does not.
@Suite struct DebugLogTests {
    @Test func debugNamesEachNotificationAndInfoDoesNot() throws {
        let fixture = try ServerFixture(extraHTTP: #", "log": {"level": "debug"}"#)
        let server = try ChildServer(configPath: fixture.configPath)
        let connection = try LoopbackConnection(port: server.port)
        let uuid = "0b0e7a6c-1d2f-4e3a-9b8c-7d6e5f4a3b2c"
        let signed = try fixture.signer.notification(uuid: uuid, type: "DID_RENEW", originalTransactionId: "7100")
        #expect(try connection.postNotification(signed).status == 200)
        #expect(try connection.postNotification(signed).status == 200)
        let output = server.output(containing: "notification.duplicate")
        #expect(
            output.contains("debug notification.stored stored app=demo uuid=\(uuid) type=DID_RENEW original_transaction_id=7100"),
            "\(output)")
        #expect(output.contains("debug notification.duplicate stored before: nothing changes app=demo uuid=\(uuid)"))
        server.kill(SIGTERM)
        #expect(server.wait() == 0)

        let quiet = try ChildServer(configPath: try ServerFixture().configPath)
        let again = try LoopbackConnection(port: quiet.port)
        #expect(try again.postNotification(try fixture.signer.notification()).status == 200)
        quiet.kill(SIGTERM)
        #expect(quiet.wait() == 0)
        #expect(!quiet.allOutput.contains("notification.stored"))
    }
}
