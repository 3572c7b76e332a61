import AppStore
import Foundation
import JSON
import Server
import Subscriptions

/// One simulated customer's subscription, kept between `revenuedot simulate` runs under
/// `.revenuedot/simulator/<app>/<user>.json`, so `subscribe` then `upgrade` continue one story.
struct SimulatedSubscription: Codable, Sendable {
    var originalTransactionId: String
    var productId: String
    var autoRenewProductId: String
    var autoRenew = true
    /// The current transaction: its id, period and whether it is a free trial.
    var transactionId: String
    var purchaseMs: Int64
    var expiresMs: Int64
    /// When the subscription was first bought: every transaction's `originalPurchaseDate`. Nil in
    /// stories saved before it was kept, which then use the current purchase date as before.
    var originalPurchaseMs: Int64?
    /// The story's clock once `renew` has moved it past the wall clock (the next period starts
    /// where the current one ends): later steps happen then, not before the period they follow.
    var clockMs: Int64?
    var trial = false
    /// How many transactions the subscription has had.
    var transactions = 1
    var billingIssue = false
    var graceEndsMs: Int64?
    var priceIncreasePending = false
    var refundedMs: Int64?
    /// The customer is a family member with access through Family Sharing (`subscribe
    /// --family-shared`): each family member has transactions of their own, all `FAMILY_SHARED`.
    var familyShared = false
    var expired = false
    var appAccountToken: String
    var environment: String
    var bundleId: String

    /// A fresh subscription to `productId`, starting now with transaction `transactionId`.
    init(
        productId: String, transactionId: String, periodMs: Int64, nowMs: Int64, user: String, environment: String,
        bundleId: String, trial: Bool, familyShared: Bool = false
    ) {
        originalTransactionId = transactionId
        self.productId = productId
        autoRenewProductId = productId
        self.transactionId = transactionId
        purchaseMs = nowMs
        expiresMs = nowMs + periodMs
        originalPurchaseMs = nowMs
        self.trial = trial
        self.familyShared = familyShared
        appAccountToken = UUID(uuidString: user)?.uuidString.lowercased() ?? SimulatedSubscription.token(for: user)
        self.environment = environment
        self.bundleId = bundleId
    }

    /// A stable UUID for an `app_user_id` that is not one (Apple's `appAccountToken` must be a UUID).
    static func token(for user: String) -> String { EventID.nameBased(user, in: "revenuedot:simulator") }

    /// Starts the next transaction of the subscription, `transactionId`: `productId` from
    /// `startMs` for one period.
    mutating func nextPeriod(productId: String, transactionId: String, startMs: Int64, periodMs: Int64) {
        transactions += 1
        self.transactionId = transactionId
        self.productId = productId
        purchaseMs = startMs
        expiresMs = startMs + periodMs
        trial = false
        billingIssue = false
        graceEndsMs = nil
        refundedMs = nil
        expired = false
    }

    // MARK: - Signed payloads

    func transactionJSON(signedMs: Int64, revoked: Bool = false) -> JSONValue {
        var members: [String: JSONValue] = [
            "transactionId": .string(transactionId), "originalTransactionId": .string(originalTransactionId),
            "webOrderLineItemId": .string("4\(transactionId.dropFirst())"), "bundleId": .string(bundleId),
            "productId": .string(productId), "subscriptionGroupIdentifier": .string("21000001"),
            "purchaseDate": .integer(purchaseMs), "originalPurchaseDate": .integer(originalPurchaseMs ?? purchaseMs),
            "expiresDate": .integer(expiresMs),
            "quantity": .integer(1), "type": .string("Auto-Renewable Subscription"),
            "inAppOwnershipType": .string(familyShared ? "FAMILY_SHARED" : "PURCHASED"), "signedDate": .integer(signedMs),
            "environment": .string(environment), "transactionReason": .string(transactions > 1 ? "RENEWAL" : "PURCHASE"),
            "storefront": .string("USA"), "storefrontId": .string("143441"),
            "price": .integer(trial ? 0 : (productId.contains("yearly") ? 99_990 : 9_990)), "currency": .string("USD"),
            "appAccountToken": .string(appAccountToken),
        ]
        if trial {
            members["offerType"] = .integer(1)
            members["offerDiscountType"] = .string("FREE_TRIAL")
        }
        if revoked || refundedMs != nil {
            members["revocationDate"] = .integer(refundedMs ?? signedMs)
            members["revocationReason"] = .integer(0)
            members["revocationType"] = .string(familyShared ? "FAMILY_REVOKE" : "REFUND_FULL")
        }
        return .object(members)
    }

    func renewalJSON(signedMs: Int64, expirationIntent: Int? = nil) -> JSONValue {
        var members: [String: JSONValue] = [
            "originalTransactionId": .string(originalTransactionId), "productId": .string(productId),
            "autoRenewProductId": .string(autoRenewProductId), "autoRenewStatus": .integer(autoRenew ? 1 : 0),
            "signedDate": .integer(signedMs), "environment": .string(environment), "renewalDate": .integer(expiresMs),
            "recentSubscriptionStartDate": .integer(purchaseMs), "isInBillingRetryPeriod": .bool(billingIssue),
            "appAccountToken": .string(appAccountToken),
        ]
        if let graceEndsMs { members["gracePeriodExpiresDate"] = .integer(graceEndsMs) }
        if priceIncreasePending { members["priceIncreaseStatus"] = .integer(0) }
        if let expirationIntent { members["expirationIntent"] = .integer(Int64(expirationIntent)) }
        return .object(members)
    }
}
