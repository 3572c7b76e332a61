import Foundation
import LoopbackClient
import Testing

@testable import Server
@testable import Tools

/// `reload`: a new configuration in force without a restart, or the running one kept.
@Suite struct ReloadTests {
    /// The fixture's configuration with `edit` applied to its text, written back.
    static func rewrite(_ fixture: ServerFixture, _ edit: (String) -> String) throws {
        let text = try String(contentsOfFile: fixture.configPath, encoding: .utf8)
        _ = try fixture.directory.write("revenuedot.json", edit(text))
    }

    /// An app "late" with the fixture's root and its own keys, added before the others.
    static func addingLateApp(_ text: String) -> String {
        let root = text.components(separatedBy: "\"rootCertificates\": [\"")[1].components(separatedBy: "\"")[0]
        return text.replacingOccurrences(
            of: "\"apps\": [",
            with: """
                "apps": [
                    {"id": "late", "bundleId": "com.example.late", "environments": ["Sandbox"],
                     "rootCertificates": ["\(root)"], "secretApiKey": "sk_late"},
                """)
    }

    @Test func aNewAppIsServedOnTheSameConnectionAfterAReload() throws {
        let fixture = try ServerFixture()
        let (service, kept) = try OperationalLogTests.service(fixture)
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let late = try fixture.signer.notification(bundleId: "com.example.late")
        #expect(try connection.postNotification(late, app: "late").status == 404)
        try Self.rewrite(fixture, Self.addingLateApp)
        #expect(service.reload(from: fixture.configPath) == .reloaded(restartNeeded: []))
        #expect(try connection.postNotification(late, app: "late").status == 200)
        #expect(try connection.postNotification(try fixture.signer.notification()).status == 200)
        #expect(service.current.apps.map(\.id) == ["late", "demo", "sandbox-only"])
        #expect(OperationalLogTests.lines(kept, event: "config.reloaded").count == 1)
    }

    @Test func anInvalidConfigurationIsRefusedAndTheRunningOneKept() throws {
        let fixture = try ServerFixture()
        let (service, kept) = try OperationalLogTests.service(fixture)
        defer { service.shutdown() }
        try Self.rewrite(fixture) {
            $0.replacingOccurrences(of: "\"bundleId\": \"com.example.app\", \"appAppleId\"", with: "\"appAppleId\"")
        }
        guard case .refused(let reason) = service.reload(from: fixture.configPath) else {
            Issue.record("a configuration without a bundleId was taken")
            return
        }
        #expect(reason.contains("apps[0].bundleId: missing"), "\(reason)")
        let refused = OperationalLogTests.lines(kept, event: "config.reload_refused")
        #expect(refused.count == 1 && refused[0].contains(" error config.reload_refused kept the running configuration"))
        let connection = try LoopbackConnection(port: service.port)
        #expect(try connection.postNotification(try fixture.signer.notification()).status == 200)
        #expect(service.current.apps.count == 2)
        // A secret file others may read is refused as serve refuses it.
        try Self.rewrite(fixture, Self.addingLateApp)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: fixture.configPath)
        #expect(service.reload(from: fixture.configPath) != .reloaded(restartNeeded: []))
        #expect(service.current.apps.count == 2)
    }

    @Test func rotatedAPIKeysTakeEffectAtOnce() throws {
        let fixture = try ServerFixture()
        let (service, _) = try OperationalLogTests.service(fixture)
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        func lookup(_ key: String) throws -> Int {
            try connection.request("GET", "/v1/subscribers/alice", headers: ["Authorization": "Bearer \(key)"]).status
        }
        #expect(try lookup("sk_test_secret") == 201)
        try Self.rewrite(fixture) { $0.replacingOccurrences(of: "sk_test_secret", with: "sk_rotated") }
        #expect(service.reload(from: fixture.configPath) == .reloaded(restartNeeded: []))
        #expect(try lookup("sk_test_secret") == 401)
        #expect(try lookup("sk_rotated") == 200)
    }

    @Test func aWebhookAddedByAReloadReceivesTheEventsThatFollow() throws {
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let fixture = try ServerFixture(demoOptions: #""trackNewPurchasesFromServerNotifications": true"#)
        let (service, _) = try OperationalLogTests.service(fixture)
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let first = try fixture.signer.notification(type: "SUBSCRIBED", subtype: "INITIAL_BUY", originalTransactionId: "7001")
        #expect(try connection.postNotification(first).status == 200)
        try Self.rewrite(fixture) {
            $0.replacingOccurrences(
                of: #""trackNewPurchasesFromServerNotifications": true"#,
                with: #""trackNewPurchasesFromServerNotifications": true, "webhook": {"url": "\#(receiver.url)"}"#)
        }
        #expect(service.reload(from: fixture.configPath) == .reloaded(restartNeeded: []))
        let second = try fixture.signer.notification(type: "SUBSCRIBED", subtype: "INITIAL_BUY", originalTransactionId: "7002")
        #expect(try connection.postNotification(second).status == 200)
        let received = receiver.wait { $0.count >= 1 }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(receiver.received.count == 1, "only the event made after the reload has a webhook")
        #expect(received.first?.type == "INITIAL_PURCHASE")
    }

    @Test func keysThatNeedARestartKeepTheirRunningValuesAndAreNamed() throws {
        let fixture = try ServerFixture()
        let (service, kept) = try OperationalLogTests.service(fixture)
        defer { service.shutdown() }
        let port = service.port
        try Self.rewrite(fixture) {
            $0.replacingOccurrences(
                of: "\"listen\": \"127.0.0.1:0\"", with: "\"listen\": \"127.0.0.1:1\", \"node\": {\"id\": \"n2\"}")
        }
        #expect(service.reload(from: fixture.configPath) == .reloaded(restartNeeded: ["listen", "node"]))
        #expect(service.port == port)
        #expect(try LoopbackConnection(port: port).request("GET", "/health").status == 200)
        let warned = OperationalLogTests.lines(kept, event: "config.restart_needed")
        #expect(warned.count == 1 && warned[0].contains("keys=listen,node"), "\(warned)")
    }

    @Test func aReloadDuringShutdownIsRefused() throws {
        let fixture = try ServerFixture()
        let (service, _) = try OperationalLogTests.service(fixture)
        service.shutdown()
        #expect(service.reload(from: fixture.configPath) == .refused("the server is stopping"))
    }
}
