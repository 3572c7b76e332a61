import AppStore
import Crypto
import Foundation
import JSON
import Server

/// `revenuedot init`: writes a demo `revenuedot.json`, a dev CA that it trusts, and a sample
/// signed notification, so a newcomer has a server to POST to within a minute.
package struct InitCommand {
    package static let usage = """
        usage: revenuedot init [--config FILE]

        Writes a demo configuration (app "demo", bundle com.example.app, SQLite database next to
        it) unless FILE exists, a local App Store chain under .revenuedot/dev-ca/ that the demo
        trusts, a demo in-app purchase key there (for Advanced Commerce and the simulated App
        Store Server API, never Apple's), and .revenuedot/sample-notification.json, a signed
        SUBSCRIBED notification. FILE's directory must exist: init makes no folders but those.
        """

    let configPath: String

    package init(arguments: [String]) throws {
        let parsed = try ParsedArguments(arguments, valueOptions: ["config"], flagOptions: [])
        guard parsed.positionals.isEmpty else { throw UsageError("init takes no arguments") }
        configPath = parsed.value("config") ?? "revenuedot.json"
    }

    package func run() throws -> Int32 {
        let configURL = URL(fileURLWithPath: configPath).standardizedFileURL
        if Paths.isDirectory(configURL.path) {
            // Refused before anything is made beside it.
            throw UsageError(
                "--config \(configPath) is a directory: name the configuration file, such as \(configPath)/revenuedot.json")
        }
        let base = configURL.deletingLastPathComponent()
        guard Paths.isDirectory(base.path) else {
            // A mistyped path must not leave a tree of folders behind.
            throw UsageError(
                "--config \(configPath): there is no directory \(base.path); create it first (mkdir -p \(base.path))")
        }
        let state = base.appendingPathComponent(".revenuedot")
        let existing = FileManager.default.fileExists(atPath: configURL.path)
        if existing {
            // Left as it is; but a file serve would refuse is said now, not at the next step,
            // and before anything is made beside it.
            do throws(ConfigError) {
                _ = try ConfigLoader.loadForServing(path: configPath)
            } catch {
                throw ExistingConfigRefused(path: configPath, error: error)
            }
        }
        let ca = try DevCA.loadOrCreate(in: state.appendingPathComponent("dev-ca"))
        if existing {
            StandardStreams.out("revenuedot init: \(configPath) exists; leaving it as it is\n")
        } else {
            let keyPath = ".revenuedot/dev-ca/" + Self.inAppPurchaseKeyFile
            let keyURL = base.appendingPathComponent(keyPath)
            if !FileManager.default.fileExists(atPath: keyURL.path) {
                let key = try ECPrivateKey(generating: .p256)
                try PrivateFile.write(Data(try key.pkcs8PEM().utf8), to: keyURL.path, exclusive: true)
            }
            // It holds the app's API keys: readable by its owner only, like the dev CA's keys.
            try PrivateFile.write(
                Data(
                    Self.demoConfig(
                        rootPath: ".revenuedot/dev-ca/root.pem", secretApiKey: Self.randomKey("sk_"),
                        publicApiKey: Self.randomKey("appl_"), inAppPurchaseKeyPath: keyPath,
                        issuerId: UUID().uuidString.lowercased()
                    ).utf8), to: configURL.path, exclusive: true)
            StandardStreams.out("revenuedot init: wrote \(configPath) (app \"demo\", database sqlite:revenuedot.sqlite)\n")
        }
        let sample = state.appendingPathComponent("sample-notification.json")
        if !FileManager.default.fileExists(atPath: sample.path) {
            let body = JSONValue.object(["signedPayload": .string(try SampleNotification.subscribed(chain: ca.chain))])
            try PrivateFile.write(Data((body.serialized() + "\n").utf8), to: sample.path, exclusive: false)
        }
        return 0
    }

    /// `prefix` and 32 hex digits from the system's secure generator: a demo server left
    /// listening must not answer to keys every copy of RevenueDot knows.
    static func randomKey(_ prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        return prefix + (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// The demo app's in-app purchase key, under the dev CA's directory.
    static let inAppPurchaseKeyFile = "in-app-purchase-key.p8"

    /// The demo: Sandbox only, as its dev CA is no root to trust in Production, and so every
    /// command asking the App Store Server API asks `revenuedot simulate apple-api` on its
    /// default port, never Apple's Production host; its in-app purchase key is one Apple never
    /// issued, so the API is asked only when a command or request asks, never on a schedule.
    static func demoConfig(
        rootPath: String, secretApiKey: String, publicApiKey: String, inAppPurchaseKeyPath: String, issuerId: String
    ) -> String {
        """
        {
          "listen": "127.0.0.1:8080",
          "database": "sqlite:revenuedot.sqlite",
          "apps": [{
            "id": "demo",
            "bundleId": "com.example.app",
            "appAppleId": 1234567890,
            "environments": ["Sandbox"],
            "rootCertificates": ["\(rootPath)"],
            "trackNewPurchasesFromServerNotifications": true,
            "secretApiKey": "\(secretApiKey)",
            "publicApiKey": "\(publicApiKey)",
            "entitlements": { "pro": ["pro.monthly", "pro.yearly"] },
            "inAppPurchaseKey": {
              "keyId": "DEMOKEY001", "issuerId": "\(issuerId)", "privateKeyPath": "\(inAppPurchaseKeyPath)"
            }
          }],
          "appleApi": {
            "baseURLs": { "Sandbox": "http://127.0.0.1:8090" },
            "backfillIntervalMinutes": 0,
            "requestsPerSecond": 0
          },
          "scheduler": { "intervalMs": 1000 }
        }

        """
    }
}

/// An existing configuration init leaves alone, which `serve` would refuse.
struct ExistingConfigRefused: Error, CustomStringConvertible {
    let path: String
    let error: ConfigError

    var description: String {
        let reason = error.key.isEmpty ? error.problem : "\(error.key): \(error.problem)"
        return "\(path) exists and is left as it is, but serve would refuse it: \(reason)".escapingControls
    }
}

/// A signed notification as App Store would send it, for the demo and the quick start.
enum SampleNotification {
    static func subscribed(chain: TestChain, now: Date = Date()) throws -> String {
        let ms = Int64(now.timeIntervalSince1970 * 1000)
        let original = "2000000\(ms % 1_000_000_000)"
        let transaction: [String: JSONValue] = [
            "transactionId": .string(original), "originalTransactionId": .string(original),
            "webOrderLineItemId": .string("3000000\(ms % 1_000_000_000)"), "bundleId": .string("com.example.app"),
            "productId": .string("pro.monthly"), "subscriptionGroupIdentifier": .string("21000001"),
            "purchaseDate": .integer(ms), "originalPurchaseDate": .integer(ms), "expiresDate": .integer(ms + 30 * 86_400_000),
            "quantity": .integer(1), "type": .string("Auto-Renewable Subscription"), "inAppOwnershipType": .string("PURCHASED"),
            "signedDate": .integer(ms), "environment": .string("Sandbox"), "transactionReason": .string("PURCHASE"),
            "storefront": .string("USA"), "storefrontId": .string("143441"), "price": .integer(9990), "currency": .string("USD"),
            "appAccountToken": .string(UUID().uuidString.lowercased()),
        ]
        let renewal: [String: JSONValue] = [
            "originalTransactionId": .string(original), "productId": .string("pro.monthly"),
            "autoRenewProductId": .string("pro.monthly"), "autoRenewStatus": .integer(1), "signedDate": .integer(ms),
            "environment": .string("Sandbox"), "renewalDate": .integer(ms + 30 * 86_400_000),
            "recentSubscriptionStartDate": .integer(ms), "renewalPrice": .integer(9990), "currency": .string("USD"),
        ]
        let notification: [String: JSONValue] = [
            "notificationType": .string("SUBSCRIBED"), "subtype": .string("INITIAL_BUY"),
            "notificationUUID": .string(UUID().uuidString.lowercased()), "version": .string("2.0"), "signedDate": .integer(ms),
            "data": .object([
                "appAppleId": .integer(1_234_567_890), "bundleId": .string("com.example.app"), "bundleVersion": .string("1"),
                "environment": .string("Sandbox"), "status": .integer(1),
                "signedTransactionInfo": .string(try chain.sign(payload: Data(JSONValue.object(transaction).serialized().utf8))),
                "signedRenewalInfo": .string(try chain.sign(payload: Data(JSONValue.object(renewal).serialized().utf8))),
            ]),
        ]
        return try chain.sign(payload: Data(JSONValue.object(notification).serialized().utf8))
    }
}
