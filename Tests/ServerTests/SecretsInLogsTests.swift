import Foundation
import LoopbackClient
import Testing

@testable import Server

/// No configured secret ever reaches a log: a server with every kind of secret configured,
/// logging everything (debug level, access lines for probes too), is driven through successes
/// and failures, and its whole output is searched for each secret.
@Suite struct SecretsInLogsTests {
    static let secrets = [
        "sk_secret_9d1f6c0a", "pk_public_4b7e2a91", "Bearer hook-token-5c3d8e7f", "whsec_signing_1a2b3c4d",
    ]

    /// Searches `output` for each secret, and for any compact JWS or JWT (a signed payload or a
    /// token made from the In-App Purchase key: base64url JSON headers start "eyJ").
    static func expectNoSecret(in output: String, also extra: [String] = []) {
        for secret in secrets + extra {
            #expect(!output.contains(secret), "the log holds \(secret)")
        }
        #expect(!output.contains("eyJ"), "the log holds a JWS or a JWT")
        #expect(!output.contains("PRIVATE KEY"))
    }

    @Test(arguments: ["text", "json"]) func aServerLoggingEverythingNeverLogsASecret(format: String) throws {
        let receiver = try WebhookReceiver { index, _ in index == 0 ? 500 : 200 }
        defer { receiver.stop() }
        let directory = TestDirectory("secrets")
        let key = directory.path("SubscriptionKey_TEST.p8")
        let made = try DeploymentFilesTests.run(
            "/usr/bin/openssl", ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key])
        #expect(made.0 == 0, "\(made.1)")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: key)
        let keyBody = try String(contentsOfFile: key, encoding: .utf8).split(separator: "\n").dropFirst().first.map(String.init)
        let signer = SignedNotifications.shared
        let root = try directory.write("root.pem", signer.chain.root.pem)
        let config = try directory.write(
            "revenuedot.json",
            """
            {
              "listen": "127.0.0.1:0",
              "database": "sqlite:\(directory.path("revenuedot.sqlite"))",
              "log": {"level": "debug", "format": "\(format)", "accessProbes": true},
              "appleApi": {"baseURLs": {"Sandbox": "http://127.0.0.1:1", "Production": "http://127.0.0.1:1"}},
              "apps": [
                {"id": "demo", "bundleId": "com.example.app", "appAppleId": 1234,
                 "environments": ["Sandbox", "Production"], "rootCertificates": ["\(root)"],
                 "secretApiKey": "\(Self.secrets[0])", "publicApiKey": "\(Self.secrets[1])",
                 "trackNewPurchasesFromServerNotifications": true,
                 "inAppPurchaseKey": {"keyId": "KEY123", "issuerId": "issuer-uuid", "privateKeyPath": "\(key)"},
                 "webhook": {"url": "\(receiver.url)", "authorization": "\(Self.secrets[2])",
                             "signingSecret": "\(Self.secrets[3])", "retryDelaysSeconds": [0]}}
              ]
            }
            """)
        let server = try ChildServer(configPath: config)
        let connection = try LoopbackConnection(port: server.port)
        let bought = try signer.notification(type: "SUBSCRIBED", subtype: "INITIAL_BUY")
        #expect(try connection.postNotification(bought).status == 200)
        #expect(try connection.postNotification(bought).status == 200)
        #expect(try connection.postNotification(String(bought.dropLast(8)) + "AAAAAAAA").status == 401)
        #expect(try connection.request("POST", "/v1/apple/notifications/demo", body: Data("{\"x\":1}".utf8)).status == 400)
        for key in [Self.secrets[0], Self.secrets[1], "sk_wrong"] {
            _ = try connection.request("GET", "/v1/subscribers/alice?key=\(key)", headers: ["Authorization": "Bearer \(key)"])
        }
        _ = try connection.postTransaction("not.a.transaction", for: "alice", key: Self.secrets[1])
        _ = try connection.request("GET", "/health")
        _ = try connection.request("GET", "/metrics")
        _ = receiver.wait { $0.count >= 2 }
        // A reload refused (JSON broken right after a secret) and one taken.
        let text = try String(contentsOfFile: config, encoding: .utf8)
        _ = try directory.write(
            "revenuedot.json", text.replacingOccurrences(of: "\(Self.secrets[0])\",", with: "\(Self.secrets[0])\" ,,"))
        server.kill(SIGHUP)
        _ = server.output(containing: "config.reload_refused")
        _ = try directory.write("revenuedot.json", text)
        server.kill(SIGHUP)
        _ = server.output(containing: "config.reloaded")
        let checked = try runCLI(["check-config", "--config", config])
        server.kill(SIGTERM)
        #expect(server.wait(timeout: 30) == 0)
        let output = server.allOutput + checked.output
        #expect(output.contains("notification.refused") && output.contains("webhook.failed"), "\(output)")
        #expect(output.contains("config.reload_refused") && output.contains("access"), "\(output)")
        Self.expectNoSecret(in: output, also: keyBody.map { [$0] } ?? [])
    }

    @Test(.enabled(if: TestCluster.url != nil)) func theDatabasePasswordIsNeverLogged() throws {
        try PostgresServeTests.withDatabase { url in
            let password = try #require(url.password)
            let text = "postgres://\(url.user):\(password)@\(url.host):\(url.port)/\(url.database)"
            let fixture = try ServerFixture(extraHTTP: #", "log": {"level": "debug"}"#, database: "\"\(text)\"")
            let server = try ChildServer(configPath: fixture.configPath)
            let connection = try LoopbackConnection(port: server.port)
            #expect(try connection.postNotification(try fixture.signer.notification()).status == 200)
            let checked = try runCLI(["check-config", "--config", fixture.configPath])
            #expect(checked.status == 0, "\(checked.output)")
            server.kill(SIGTERM)
            #expect(server.wait(timeout: 30) == 0)
            let output = server.allOutput + checked.output
            #expect(output.contains(url.host), "\(output)")
            Self.expectNoSecret(in: output, also: [password])
        }
    }
}
