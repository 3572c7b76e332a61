import AppStore
import AppStoreServerAPI
import AppStoreServerAPISimulator
import Crypto
import Foundation
import JSON

/// A simulated App Store (one Sandbox app) behind a local App Store Server API, and a client of
/// it holding the app's In-App Purchase key: what every test here starts from.
final class APIFixture: @unchecked Sendable {
    static let bundleId = "com.example.app"
    static let appAppleId: Int64 = 1234
    static let keyId = "KEY123"
    static let issuerId = "57246542-96fe-1a63-e053-0824d011072a"
    static let chain: TestChain = try! TestChain()
    static let key: ECPrivateKey = try! ECPrivateKey(generating: .p256)

    let store: SimulatedAppStore
    let simulator: AppStoreServerAPISimulator
    let client: AppStoreServerAPIClient

    init(
        environment: AppStoreEnvironment = .sandbox, retry: RetryPolicy = RetryPolicy(maxAttempts: 4, baseDelaySeconds: 0.01),
        timeoutSeconds: Double = 5, clientKey: ECPrivateKey = APIFixture.key, keyId: String = APIFixture.keyId,
        trustedRoot: Certificate = APIFixture.chain.root, clock: @escaping @Sendable () -> Date = { Date() },
        cancellation: CallCancellation = CallCancellation()
    ) throws {
        store = try SimulatedAppStore(
            apps: [SimulatedAppStore.App(bundleId: Self.bundleId, appAppleId: Self.appAppleId, environment: environment)],
            chain: Self.chain)
        let tokens = TokenCheck(keys: [
            try TokenCheck.Key(
                keyId: Self.keyId, issuerId: Self.issuerId, publicKeyPEM: try Self.key.publicKeyPEM(), bundleIds: [Self.bundleId])
        ])
        simulator = AppStoreServerAPISimulator(store: store, tokens: tokens)
        let port = try simulator.start()
        let verifier = try SignedDataVerifier(
            rootCertificates: [trustedRoot],
            policy: VerificationPolicy(bundleId: Self.bundleId, appAppleId: Self.appAppleId, environments: [environment]))
        client = try AppStoreServerAPIClient(
            AppStoreServerAPIClient.Configuration(
                environment: environment,
                baseURL: APIBaseURL(host: "127.0.0.1", port: port, usesTLS: false, pathPrefix: ""),
                token: try APIToken(p8: try clientKey.pkcs8PEM(), keyId: keyId, issuerId: Self.issuerId, bundleId: Self.bundleId),
                verifier: verifier, timeoutSeconds: timeoutSeconds, retry: retry, requestsPerSecond: 0),
            clock: clock, cancellation: cancellation)
    }

    deinit { simulator.shutdown() }

    static var nowMs: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// A subscription transaction's payload members.
    static func transaction(
        _ id: String, original: String? = nil, product: String = "pro.monthly", purchased: Int64 = nowMs - 86_400_000,
        expires: Int64? = nil, environment: String = "Sandbox", revoked: Bool = false
    ) -> [String: JSONValue] {
        var payload: [String: JSONValue] = [
            "transactionId": .string(id), "originalTransactionId": .string(original ?? id), "bundleId": .string(bundleId),
            "productId": .string(product), "subscriptionGroupIdentifier": .string("group"), "purchaseDate": .integer(purchased),
            "originalPurchaseDate": .integer(purchased), "expiresDate": .integer(expires ?? purchased + 30 * 86_400_000),
            "type": .string("Auto-Renewable Subscription"), "inAppOwnershipType": .string("PURCHASED"),
            "environment": .string(environment), "transactionReason": .string("PURCHASE"),
            "webOrderLineItemId": .string("w\(id)"),
            "signedDate": .integer(purchased),
        ]
        if revoked {
            payload["revocationDate"] = .integer(purchased + 1000)
            payload["revocationReason"] = .integer(0)
        }
        return payload
    }

    /// A signed notification about `transaction`, dated `signedDate`.
    static func notification(
        type: String = "DID_RENEW", subtype: String? = nil, transaction: [String: JSONValue], signedDate: Int64,
        environment: String = "Sandbox"
    ) throws -> String {
        var payload: [String: JSONValue] = [
            "notificationType": .string(type), "notificationUUID": .string(UUID().uuidString.lowercased()),
            "version": .string("2.0"), "signedDate": .integer(signedDate),
            "data": .object([
                "bundleId": .string(bundleId), "appAppleId": .integer(appAppleId), "environment": .string(environment),
                "signedTransactionInfo": .string(try chain.sign(payload: Data(JSONValue.object(transaction).serialized().utf8))),
            ]),
        ]
        if let subtype { payload["subtype"] = .string(subtype) }
        return try chain.sign(payload: Data(JSONValue.object(payload).serialized().utf8))
    }
}
