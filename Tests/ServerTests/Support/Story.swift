import AppStore
import Foundation
import JSON
import Threads

@testable import Server
@testable import Tools

/// One subscription's notifications, signed in order as Apple would send them, with explicit
/// products and dates (each step's `signedDate` one millisecond after the last).
final class Story: Sendable {
    let signer: SignedNotifications
    let originalTransactionId: String
    let bundleId = "com.example.app"
    private let step = Locked<Int64>(0)
    let startMs: Int64

    init(signer: SignedNotifications, originalTransactionId: String = String(UInt64.random(in: 1_000_000_000...9_999_999_999))) {
        self.signer = signer
        self.originalTransactionId = originalTransactionId
        startMs = Int64(Date().timeIntervalSince1970 * 1000)
    }

    static var nowMs: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    /// A transaction of this subscription.
    struct Period {
        var transactionId: String
        var productId: String
        var purchaseMs: Int64
        var expiresMs: Int64
    }

    /// Period `number` of this subscription: `product` from `startMs` until `endMs`.
    func period(_ number: Int, _ product: String = "pro.monthly", from startMs: Int64, until endMs: Int64) -> Period {
        Period(transactionId: "\(originalTransactionId)\(number)", productId: product, purchaseMs: startMs, expiresMs: endMs)
    }

    /// A signed notification; `renewal` members override the renewal info's defaults.
    func notification(
        _ type: String, _ subtype: String? = nil, period: Period, autoRenewProductId: String? = nil,
        autoRenewStatus: Int = 1, renewal: [String: JSONValue] = [:]
    ) throws -> String {
        let signedDate = step.withLock { value -> Int64 in
            value += 1
            return startMs + value
        }
        let transaction: [String: JSONValue] = [
            "transactionId": .string(period.transactionId), "originalTransactionId": .string(originalTransactionId),
            "bundleId": .string(bundleId), "productId": .string(period.productId),
            "subscriptionGroupIdentifier": .string("21000001"), "purchaseDate": .integer(period.purchaseMs),
            "originalPurchaseDate": .integer(startMs), "expiresDate": .integer(period.expiresMs), "quantity": .integer(1),
            "type": .string("Auto-Renewable Subscription"), "inAppOwnershipType": .string("PURCHASED"),
            "environment": .string("Sandbox"), "signedDate": .integer(signedDate), "price": .integer(9990),
            "currency": .string("USD"), "storefront": .string("USA"),
        ]
        var renewalInfo: [String: JSONValue] = [
            "originalTransactionId": .string(originalTransactionId), "productId": .string(period.productId),
            "autoRenewProductId": .string(autoRenewProductId ?? period.productId),
            "autoRenewStatus": .integer(Int64(autoRenewStatus)),
            "environment": .string("Sandbox"), "signedDate": .integer(signedDate), "renewalDate": .integer(period.expiresMs),
        ]
        for (key, value) in renewal { renewalInfo[key] = value }
        var notification: [String: JSONValue] = [
            "notificationType": .string(type), "notificationUUID": .string(UUID().uuidString.lowercased()),
            "version": .string("2.0"), "signedDate": .integer(signedDate),
            "data": .object([
                "appAppleId": .integer(signer.appAppleId), "bundleId": .string(bundleId), "environment": .string("Sandbox"),
                "status": .integer(1), "signedTransactionInfo": .string(try signer.sign(.object(transaction))),
                "signedRenewalInfo": .string(try signer.sign(.object(renewalInfo))),
            ]),
        ]
        notification["subtype"] = subtype.map(JSONValue.string)
        return try signer.sign(.object(notification))
    }
}
