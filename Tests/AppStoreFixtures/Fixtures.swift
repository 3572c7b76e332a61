import AppStore
import Crypto
import Foundation

/// Signed App Store payloads made at test time over test chains, as Apple would sign them.
public enum Fixtures {
    public static let bundleId = "com.example.app"
    public static let appAppleId: Int64 = 1_234_567_890
    /// 2026-11-01T00:00:00Z, a fixed "now" so tests do not depend on the clock.
    public static let now = Date(timeIntervalSince1970: 1_793_491_200)
    public static var nowMs: Int64 { Int64(now.timeIntervalSince1970 * 1000) }

    /// One chain for the whole test run: generating P-384 keys is cheap but not free.
    public static let chain: TestChain = try! TestChain(now: now)
    public static let otherChain: TestChain = try! TestChain(now: now, name: "Other Test")

    public static func verifier(
        roots: [Certificate] = [chain.root], bundleId: String? = bundleId, appAppleId: Int64? = appAppleId,
        environments: Set<AppStoreEnvironment>? = [.sandbox, .production], cache: ChainCache? = ChainCache()
    ) throws -> SignedDataVerifier {
        try SignedDataVerifier(
            rootCertificates: roots,
            policy: VerificationPolicy(bundleId: bundleId, appAppleId: appAppleId, environments: environments),
            chainCache: cache)
    }

    public static func transactionJSON(
        environment: String = "Sandbox", bundleId: String = bundleId, signedDate: Int64? = nowMs
    ) -> [String: Any] {
        var json: [String: Any] = [
            "transactionId": "2000000000000002", "originalTransactionId": "2000000000000001",
            "webOrderLineItemId": "2000000000000003", "bundleId": bundleId, "productId": "pro.monthly",
            "subscriptionGroupIdentifier": "21000001", "purchaseDate": nowMs - 1000, "originalPurchaseDate": nowMs - 86_400_000,
            "expiresDate": nowMs + 30 * 86_400_000, "quantity": 1, "type": "Auto-Renewable Subscription",
            "inAppOwnershipType": "PURCHASED", "environment": environment, "transactionReason": "RENEWAL",
            "storefront": "USA", "storefrontId": "143441", "price": 9990, "currency": "USD",
            "appTransactionId": "704289572311513457",
        ]
        json["signedDate"] = signedDate
        return json
    }

    public static func renewalJSON(environment: String = "Sandbox", signedDate: Int64? = nowMs) -> [String: Any] {
        var json: [String: Any] = [
            "originalTransactionId": "2000000000000001", "productId": "pro.monthly", "autoRenewProductId": "pro.yearly",
            "autoRenewStatus": 1, "environment": environment, "renewalDate": nowMs + 30 * 86_400_000,
            "recentSubscriptionStartDate": nowMs - 86_400_000, "renewalPrice": 99990, "currency": "USD",
        ]
        json["signedDate"] = signedDate
        return json
    }

    /// A DID_RENEW notification with a signed transaction and renewal info, all signed by `chain`.
    public static func notificationJSON(
        type: String = "DID_RENEW", subtype: String? = nil, environment: String = "Sandbox", bundleId: String = bundleId,
        appAppleId: Int64? = appAppleId, signedDate: Int64? = nowMs, chain: TestChain = chain,
        transaction: [String: Any]? = nil, renewal: [String: Any]? = nil
    ) throws -> [String: Any] {
        var data: [String: Any] = [
            "bundleId": bundleId, "bundleVersion": "42", "environment": environment, "status": 1,
            "signedTransactionInfo": try sign(
                transaction ?? transactionJSON(environment: environment, bundleId: bundleId), with: chain),
            "signedRenewalInfo": try sign(renewal ?? renewalJSON(environment: environment), with: chain),
        ]
        data["appAppleId"] = appAppleId
        var json: [String: Any] = [
            "notificationType": type, "notificationUUID": UUID().uuidString.lowercased(), "version": "2.0", "data": data,
        ]
        json["subtype"] = subtype
        json["signedDate"] = signedDate
        return json
    }

    public static func sign(_ json: [String: Any], with chain: TestChain = chain) throws -> String {
        try chain.sign(payload: JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]))
    }

    public static func signedNotification(
        type: String = "DID_RENEW", environment: String = "Sandbox", signedDate: Int64? = nowMs, chain: TestChain = chain
    ) throws -> String {
        try sign(notificationJSON(type: type, environment: environment, signedDate: signedDate, chain: chain), with: chain)
    }

    /// A JWS with the given header and payload and a signature by `key`, for malformed-header cases.
    public static func jws(header: [String: Any], payload: [String: Any], key: ECPrivateKey = chain.leafKey) throws -> String {
        let headerText = Base64.encode(try JSONSerialization.data(withJSONObject: header), alphabet: .url)
        let payloadText = Base64.encode(try JSONSerialization.data(withJSONObject: payload), alphabet: .url)
        let input = headerText + "." + payloadText
        return input + "." + Base64.encode(try key.signRaw(Array(input.utf8)), alphabet: .url)
    }

    public static func base64(_ certificate: Certificate) -> String { Base64.encode(certificate.der, alphabet: .standard) }
}
