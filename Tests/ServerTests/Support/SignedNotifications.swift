import AppStore
import Foundation
import JSON

/// App Store notifications signed at test time over a test chain, as Apple would send them.
struct SignedNotifications {
    let chain: TestChain
    var bundleId = "com.example.app"
    var appAppleId: Int64 = 1234

    static let shared = SignedNotifications(chain: try! TestChain())

    /// A DID_RENEW (by default) with nested transaction and renewal info; returns the JWS.
    ///
    /// - Parameter atMs: when the period began and everything was signed (Unix ms); now by
    ///   default. The period lasts 30 days.
    func notification(
        uuid: String = UUID().uuidString.lowercased(), type: String = "DID_RENEW", subtype: String? = nil,
        environment: String = "Sandbox", bundleId: String? = nil, originalTransactionId: String? = nil,
        appAccountToken: String? = nil, productId: String = "pro.monthly", transactionId: String? = nil,
        atMs: Int64? = nil, transactionFields: [String: JSONValue] = [:]
    ) throws -> String {
        // Each notification is about its own purchase unless told otherwise, as under real load.
        let originalTransactionId = originalTransactionId ?? String(UInt64.random(in: 1_000_000_000...9_999_999_999))
        let bundle = bundleId ?? self.bundleId
        let now = atMs ?? Int64(Date().timeIntervalSince1970 * 1000)
        var transaction: [String: JSONValue] = [
            "transactionId": .string(transactionId ?? "\(originalTransactionId)-\(uuid.prefix(8))"),
            "originalTransactionId": .string(originalTransactionId), "bundleId": .string(bundle),
            "productId": .string(productId), "purchaseDate": .integer(now), "expiresDate": .integer(now + 2_592_000_000),
            "type": .string("Auto-Renewable Subscription"), "inAppOwnershipType": .string("PURCHASED"),
            "environment": .string(environment), "signedDate": .integer(now), "price": .integer(9990), "currency": .string("USD"),
        ]
        transaction["appAccountToken"] = appAccountToken.map(JSONValue.string)
        transaction.merge(transactionFields) { _, given in given }
        let renewal: [String: JSONValue] = [
            "originalTransactionId": .string(originalTransactionId), "productId": .string(productId),
            "autoRenewProductId": .string(productId), "autoRenewStatus": .integer(1), "environment": .string(environment),
            "signedDate": .integer(now),
        ]
        var notification: [String: JSONValue] = [
            "notificationType": .string(type), "notificationUUID": .string(uuid), "version": .string("2.0"),
            "signedDate": .integer(now),
            "data": .object([
                "appAppleId": .integer(appAppleId), "bundleId": .string(bundle), "environment": .string(environment),
                "status": .integer(1), "signedTransactionInfo": .string(try sign(.object(transaction))),
                "signedRenewalInfo": .string(try sign(.object(renewal))),
            ]),
        ]
        notification["subtype"] = subtype.map(JSONValue.string)
        return try sign(.object(notification))
    }

    /// Apple's request body for a signed payload.
    static func body(_ signedPayload: String) -> Data {
        Data(JSONValue.object(["signedPayload": .string(signedPayload)]).serialized().utf8)
    }

    func sign(_ value: JSONValue) throws -> String { try chain.sign(payload: Data(value.serialized().utf8)) }
}
