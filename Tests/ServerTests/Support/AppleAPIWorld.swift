import AppStore
import AppStoreServerAPI
import AppStoreServerAPISimulator
import Crypto
import Foundation
import JSON

@testable import Server
@testable import Tools

/// A local App Store Server API for app "demo" (com.example.app, Sandbox), signing over the
/// shared test chain, and a configuration whose demo app holds the key it knows.
final class AppleAPIWorld: @unchecked Sendable {
    static let key: ECPrivateKey = try! ECPrivateKey(generating: .p256)
    static let keyId = "TESTKEY001"
    static let issuerId = "57246542-96fe-1a63-e053-0824d011072a"

    let store: SimulatedAppStore
    let simulator: AppStoreServerAPISimulator
    let directory = TestDirectory("revenuedot-apple-api")
    let configPath: String
    let databasePath: String
    let signer = SignedNotifications.shared

    init(
        backfillIntervalMinutes: Int = 0, demoOptions: String = "", consumption: String? = nil, reconcileIntervalMinutes: Int = 0,
        database: String? = nil, deliver: SimulatedAppStore.Delivery? = nil
    ) throws {
        store = try SimulatedAppStore(
            apps: [SimulatedAppStore.App(bundleId: "com.example.app", appAppleId: 1234, environment: .sandbox)],
            chain: signer.chain, deliver: deliver)
        simulator = AppStoreServerAPISimulator(
            store: store,
            tokens: TokenCheck(keys: [
                try TokenCheck.Key(
                    keyId: Self.keyId, issuerId: Self.issuerId, publicKeyPEM: try Self.key.publicKeyPEM(),
                    bundleIds: ["com.example.app"])
            ]))
        let port = try simulator.start()
        let root = try directory.write("root.pem", signer.chain.root.pem)
        let keyPath = try directory.write("SubscriptionKey.p8", try Self.key.pkcs8PEM())
        databasePath = directory.path("revenuedot.sqlite")
        configPath = try directory.write(
            "revenuedot.json",
            """
            {
              "listen": "127.0.0.1:0",
              "database": "\(database ?? "sqlite:\(databasePath)")",
              "apps": [
                {"id": "demo", "bundleId": "com.example.app", "appAppleId": 1234, "environments": ["Sandbox"],
                 "rootCertificates": ["\(root)"], "secretApiKey": "sk_test_secret", "publicApiKey": "pk_test_public",
                 "trackNewPurchasesFromServerNotifications": true,
                 "entitlements": {"pro": ["pro.monthly"]},
                 "inAppPurchaseKey": {"keyId": "\(Self.keyId)", "issuerId": "\(Self.issuerId)", "privateKeyPath": "\(keyPath)"}
                 \(demoOptions.isEmpty ? "" : ", " + demoOptions)}
              ],
              "appleApi": {"baseURLs": {"Sandbox": "http://127.0.0.1:\(port)"}, "backfillIntervalMinutes": \(backfillIntervalMinutes),
                           "requestsPerSecond": 0, "timeoutSeconds": 5, "reconcileIntervalMinutes": \(reconcileIntervalMinutes)\(consumption.map { ", \"consumption\": \($0)" } ?? "")}
            }
            """)
    }

    deinit { simulator.shutdown() }

    func config() throws -> RevenueDotConfig { try ConfigLoader.load(path: configPath) }

    static let day: Int64 = 86_400_000

    /// The notifications of one subscription for `user`: bought `days` days ago and renewed
    /// daily since, each a day long; signed, in the order Apple sends them.
    func subscription(original: String, user: String, renewals: Int, boughtDaysAgo: Int64) throws -> [String] {
        // Two hours back: the newest notification is already sent, and a period that ended is
        // past the wait for its renewal notice (an hour at most).
        let start = Int64(Date().timeIntervalSince1970 * 1000) - boughtDaysAgo * Self.day - 7_200_000
        return try (0...renewals).map { index in
            let purchased = start + Int64(index) * Self.day
            let transaction: [String: JSONValue] = [
                "transactionId": .string("\(original)\(index)"), "originalTransactionId": .string(original),
                "bundleId": .string("com.example.app"), "productId": .string("pro.monthly"),
                "purchaseDate": .integer(purchased), "originalPurchaseDate": .integer(start),
                "expiresDate": .integer(purchased + Self.day), "type": .string("Auto-Renewable Subscription"),
                "inAppOwnershipType": .string("PURCHASED"), "environment": .string("Sandbox"),
                "signedDate": .integer(purchased + 1000), "appAccountToken": .string(user),
                "transactionReason": .string(index == 0 ? "PURCHASE" : "RENEWAL"), "price": .integer(9990),
                "currency": .string("USD"), "webOrderLineItemId": .string("\(original)\(index)"),
            ]
            let renewal: [String: JSONValue] = [
                "originalTransactionId": .string(original), "productId": .string("pro.monthly"),
                "autoRenewProductId": .string("pro.monthly"), "autoRenewStatus": .integer(1),
                "environment": .string("Sandbox"), "signedDate": .integer(purchased + 1000),
                "renewalDate": .integer(purchased + Self.day),
            ]
            var notification: [String: JSONValue] = [
                "notificationType": .string(index == 0 ? "SUBSCRIBED" : "DID_RENEW"),
                "notificationUUID": .string(UUID().uuidString.lowercased()), "version": .string("2.0"),
                "signedDate": .integer(purchased + 1000),
                "data": .object([
                    "appAppleId": .integer(1234), "bundleId": .string("com.example.app"), "environment": .string("Sandbox"),
                    "status": .integer(1), "signedTransactionInfo": .string(try signer.sign(.object(transaction))),
                    "signedRenewalInfo": .string(try signer.sign(.object(renewal))),
                ]),
            ]
            if index == 0 { notification["subtype"] = .string("INITIAL_BUY") }
            store.addTransaction(transaction, bundleId: "com.example.app", account: user)
            return try signer.sign(.object(notification))
        }
    }
}
