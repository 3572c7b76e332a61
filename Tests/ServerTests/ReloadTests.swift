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
        // What the new configuration allows but should not is said again (`ConfigWarnings`).
        let warned = OperationalLogTests.lines(kept, event: "config.warning")
        #expect(warned.contains { $0.contains("app \"demo\": secretApiKey is 14 characters") }, "\(warned)")
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

    @Test func aKeyChangedAndChangedBackNeedsNoRestart() throws {
        let fixture = try ServerFixture()
        let (service, kept) = try OperationalLogTests.service(fixture)
        defer { service.shutdown() }
        let running = try String(contentsOfFile: fixture.configPath, encoding: .utf8)
        try Self.rewrite(fixture) {
            $0.replacingOccurrences(of: "\"listen\": \"127.0.0.1:0\"", with: "\"listen\": \"127.0.0.1:1\"")
        }
        #expect(service.reload(from: fixture.configPath) == .reloaded(restartNeeded: ["listen"]))
        try Self.rewrite(fixture) { _ in running }
        #expect(service.reload(from: fixture.configPath) == .reloaded(restartNeeded: []))
        #expect(service.reload(from: fixture.configPath) == .reloaded(restartNeeded: []))
        let warned = OperationalLogTests.lines(kept, event: "config.restart_needed")
        #expect(warned.count == 1 && warned[0].contains("keys=listen"), "\(warned)")
    }

    /// A configuration file naming every key that needs a restart, with `replacements` made to its text.
    static func restartTableConfig(_ replacements: [String: String] = [:]) throws -> RevenueDotConfig {
        var text = """
            {"listen": "127.0.0.1:8080", "database": "sqlite:a.sqlite", "node": {"id": "n1"},
             "http": {"threads": 4}, "log": {"level": "info"},
             "apps": [{"id": "a", "bundleId": "com.example.a", "environments": ["Sandbox"], "secretApiKey": "sk_a"}]}
            """
        for (old, new) in replacements { text = text.replacingOccurrences(of: old, with: new) }
        return try ConfigLoader.parse(Data(text.utf8), file: "/etc/revenuedot/revenuedot.json")
    }

    /// The running configuration against a new file: the restart-only keys whose values differ.
    @Test(
        arguments: [
            ([:], []),
            (["sk_a": "sk_rotated", "com.example.a": "com.example.b"], []),
            (["127.0.0.1:8080": "127.0.0.1:8081"], ["listen"]),
            (["127.0.0.1:8080": "0.0.0.0:8080"], ["listen"]),
            (["a.sqlite": "b.sqlite"], ["database"]),
            (["\"threads\": 4": "\"threads\": 8"], ["http"]),
            (["\"threads\": 4": "\"threads\": 4, \"maxBodyBytes\": 2048"], ["http"]),
            (["n1": "n2"], ["node"]),
            (["{\"id\": \"n1\"}": "{}"], ["node"]),
            (["\"info\"": "\"debug\""], ["log"]),
            (["\"level\": \"info\"": "\"format\": \"json\""], ["log"]),
            (["8080": "8081", "n1": "n2", "\"info\"": "\"debug\""], ["listen", "node", "log"]),
            (
                [
                    "8080": "8081", "a.sqlite": "b.sqlite", "\"threads\": 4": "\"threads\": 8", "n1": "n2",
                    "\"info\"": "\"debug\"",
                ],
                ["listen", "database", "http", "node", "log"]
            ),
        ] as [([String: String], [String])])
    func restartNeededNamesTheKeysThatDifferFromTheRunningOnes(replacements: [String: String], keys: [String]) throws {
        let running = try Self.restartTableConfig()
        let new = try Self.restartTableConfig(replacements)
        #expect(RevenueDotService.keysNeedingRestart(running: running, new: new) == keys)
    }

    @Test func aReloadDuringShutdownIsRefused() throws {
        let fixture = try ServerFixture()
        let (service, _) = try OperationalLogTests.service(fixture)
        service.shutdown()
        #expect(service.reload(from: fixture.configPath) == .refused("the server is stopping"))
    }

    /// A webhook renamed by a reload leaves its pending deliveries to no worker: the reload says
    /// so (and `/metrics` counts them as unserved).
    @Test func aRenamedWebhookLeavesAWarningForWhatItLeftBehind() throws {
        let fixture = try WebhookDeliveryTests.fixture(url: "http://127.0.0.1:9/unreachable", retryDelays: "[3600]")
        let (service, kept) = try OperationalLogTests.service(fixture)
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        #expect(
            try connection.postNotification(try fixture.signer.notification(type: "SUBSCRIBED", subtype: "INITIAL_BUY"))
                .status == 200)
        #expect(OperationalLogTests.lines(kept, event: "webhook.unserved").isEmpty)
        try Self.rewrite(fixture) { $0.replacingOccurrences(of: #""webhook": {"#, with: #""webhooks": [{"name": "crm", "#) }
        try Self.rewrite(fixture) { $0.replacingOccurrences(of: #""concurrency": 8}"#, with: #""concurrency": 8}]"#) }
        guard case .reloaded = service.reload(from: fixture.configPath) else {
            Issue.record("the reload was refused: \(kept.withLock { $0 }.suffix(3))")
            return
        }
        let unserved = OperationalLogTests.lines(kept, event: "webhook.unserved")
        #expect(unserved.count == 1, "\(unserved)")
        #expect(unserved.first?.contains("app=demo webhook=\"\" pending=1") == true, "\(unserved)")
        let metrics = try connection.request("GET", "/metrics").text
        #expect(metrics.contains("revenuedot_webhook_unserved_pending 1\n"))
        #expect(metrics.contains(#"revenuedot_webhook_pending{app="demo",webhook="crm"} 0"#))

        // Told its old name, the renamed webhook takes what it left behind, and sends it at once
        // (its failure was the old receiver's, its retry an hour away).
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        try Self.rewrite(fixture) {
            $0.replacingOccurrences(of: "http://127.0.0.1:9/unreachable", with: receiver.url)
                .replacingOccurrences(of: #""name": "crm", "#, with: #""name": "crm", "previousNames": [""], "#)
        }
        guard case .reloaded = service.reload(from: fixture.configPath) else {
            Issue.record("the reload was refused: \(kept.withLock { $0 }.suffix(3))")
            return
        }
        let retired = OperationalLogTests.lines(kept, event: "webhook.retired")
        #expect(retired.count == 1 && retired.first?.contains(#"webhook="" to=crm moved=1 dropped=0"#) == true, "\(retired)")
        #expect(receiver.wait { !$0.isEmpty }.map(\.type) == ["INITIAL_PURCHASE"])
        #expect(OperationalLogTests.lines(kept, event: "webhook.unserved").count == 1)
        #expect(try connection.request("GET", "/metrics").text.contains("revenuedot_webhook_unserved_pending 0\n"))
        // Kept in the configuration, the old name changes nothing at the next reload.
        guard case .reloaded = service.reload(from: fixture.configPath) else { return }
        #expect(OperationalLogTests.lines(kept, event: "webhook.retired").count == 1)
    }

    /// A webhook removed, its name listed in `removedWebhooks`: its deliveries are dropped at the
    /// reload, the event stays.
    @Test func aRemovedWebhooksDeliveriesAreDroppedWhenItsNameIsRetired() throws {
        let fixture = try WebhookDeliveryTests.fixture(url: "http://127.0.0.1:9/unreachable", retryDelays: "[3600]")
        let (service, kept) = try OperationalLogTests.service(fixture)
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        #expect(try WebhookDeliveryTests.purchase(on: connection, fixture) == 200)
        try Self.rewrite(fixture) { text in
            let start = text.range(of: #""webhook": {"#)!.lowerBound
            let end = text.range(of: "}", range: start..<text.endIndex)!.upperBound
            return text.replacingCharacters(in: start..<end, with: #""removedWebhooks": [""]"#)
        }
        guard case .reloaded = service.reload(from: fixture.configPath) else {
            Issue.record("the reload was refused: \(kept.withLock { $0 }.suffix(3))")
            return
        }
        let retired = OperationalLogTests.lines(kept, event: "webhook.retired")
        #expect(retired.count == 1 && retired.first?.contains(#"webhook="" moved=0 dropped=1"#) == true, "\(retired)")
        #expect(OperationalLogTests.lines(kept, event: "webhook.unserved").isEmpty)
        let metrics = try connection.request("GET", "/metrics").text
        #expect(metrics.contains("revenuedot_webhook_unserved_pending 0\n"))
        #expect(!metrics.contains(#"revenuedot_webhook_pending{app="demo""#), "\(metrics)")
        service.shutdown()
        let listed = try runCLI(["events", "list", "--config", fixture.configPath, "--json"])
        #expect(listed.status == 0 && listed.output.contains("INITIAL_PURCHASE"), "\(listed.output)")
    }
}
