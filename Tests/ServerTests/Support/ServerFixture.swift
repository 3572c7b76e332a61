import AppStore
import Foundation
import JSON
import LoopbackClient

@testable import Server
@testable import Tools

/// A configuration trusting the shared test chain: app "demo" (Sandbox and Production) and
/// app "sandbox-only", listening on an ephemeral loopback port with a SQLite file.
struct ServerFixture {
    let directory = TestDirectory("revenuedot-server")
    let configPath: String
    let databasePath: String
    let signer = SignedNotifications.shared

    /// - Parameter demoOptions: extra members of app "demo", such as `"trackNewPurchasesFromServerNotifications": true`.
    /// - Parameter sandboxOptions: extra members of app "sandbox-only", such as its `"secretApiKey"`.
    /// - Parameter database: the config's `database` member (JSON); the fixture's SQLite file by default.
    init(extraHTTP: String = "", demoOptions: String = "", sandboxOptions: String = "", database: String? = nil) throws {
        let root = try directory.write("root.pem", signer.chain.root.pem)
        databasePath = directory.path("revenuedot.sqlite")
        configPath = try directory.write(
            "revenuedot.json",
            """
            {
              "listen": "127.0.0.1:0",
              "database": \(database ?? "\"sqlite:\(databasePath)\""),
              "apps": [
                {"id": "demo", "bundleId": "com.example.app", "appAppleId": 1234,
                 "environments": ["Sandbox", "Production"], "rootCertificates": ["\(root)"],
                 "secretApiKey": "sk_test_secret", "publicApiKey": "pk_test_public",
                 "entitlements": {"pro": ["pro.monthly", "pro.yearly"]}\(demoOptions.isEmpty ? "" : ", " + demoOptions)},
                {"id": "sandbox-only", "bundleId": "com.example.app", "environments": ["Sandbox"],
                 "rootCertificates": ["\(root)"]\(sandboxOptions.isEmpty ? "" : ", " + sandboxOptions)}
              ]\(extraHTTP)
            }
            """)
    }

    func config() throws -> RevenueDotConfig { try ConfigLoader.load(path: configPath) }

    /// Rewrites the configuration to listen on `port` (one a running server holds, say).
    func listen(on port: UInt16) throws {
        let text = try String(contentsOfFile: configPath, encoding: .utf8)
        _ = try directory.write("revenuedot.json", text.replacingOccurrences(of: "127.0.0.1:0", with: "127.0.0.1:\(port)"))
    }

    /// Starts an in-process service; the caller shuts it down.
    func startService() throws -> RevenueDotService {
        let service = try RevenueDotService(quietly: try config())
        try service.start()
        return service
    }
}

extension LoopbackConnection {
    /// POSTs Apple's body for `signedPayload` to app `appId`.
    func postNotification(_ signedPayload: String, app appId: String = "demo") throws -> LoopbackResponse {
        try request(
            "POST", "/v1/apple/notifications/\(appId)", headers: ["Content-Type": "application/json"],
            body: SignedNotifications.body(signedPayload))
    }

    /// POSTs a StoreKit 2 transaction as the app would, to link it to `user` (public key by default).
    func postTransaction(
        _ signed: String, for user: String, key: String = "pk_test_public", presentedOfferingId: String? = nil
    ) throws -> LoopbackResponse {
        var body: [String: JSONValue] = ["signedTransaction": .string(signed)]
        body["presentedOfferingId"] = presentedOfferingId.map(JSONValue.string)
        return try request(
            "POST", "/v1/subscribers/\(user)/transactions", headers: ["Authorization": "Bearer \(key)"],
            body: Data(JSONValue.object(body).serialized().utf8))
    }
}

extension RevenueDotService {
    /// A service whose log lines are dropped: what a test checks is its expectations, and the
    /// access lines of every request would bury them in the test run's output.
    convenience init(quietly config: RevenueDotConfig) throws {
        try self.init(config: config, log: { _ in })
    }
}
