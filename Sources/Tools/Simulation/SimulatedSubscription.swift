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
    /// What the current period cost, fixed when it started (0 for a free trial); nil in stories
    /// saved before it was kept: the product's list price.
    var priceMilliunits: Int64?
    /// The price a product renews at once the customer accepted an increase of it, by product id.
    var acceptedPrices: [String: Int64]?
    /// The period length a story asked for (`--period`), kept for the steps after it; nil: each
    /// product's own (`SimulatedProduct`).
    var fixedPeriodMs: Int64?
    /// The `signedDate` of the last step: the next one is signed after it.
    var lastSignedMs: Int64?
    /// The story clock a 0.1.0 story kept instead, ahead of the wall clock after its `renew`
    /// (signed when the next period started): kept as it was read, never moved.
    private(set) var clockMs: Int64?
    var trial = false
    /// How many transactions the subscription has had.
    var transactions = 1
    /// Whether the latest transaction is the App Store's renewal (`RENEWAL`), not the customer's
    /// purchase, resubscription or plan change (`PURCHASE`); nil in a story saved before this was
    /// kept, where any transaction after the first counts as a renewal.
    var renewedByTheStore: Bool?
    var billingIssue = false
    var graceEndsMs: Int64?
    var priceIncreasePending = false
    /// The customer accepted a price increase that takes effect at the next renewal.
    var priceIncreaseAccepted: Bool?
    var refundedMs: Int64?
    /// The customer is a family member with access through Family Sharing (`subscribe
    /// --family-shared`): each family member has transactions of their own, all `FAMILY_SHARED`.
    var familyShared = false
    var expired = false
    var appAccountToken: String
    var environment: String
    var bundleId: String
    /// What the subscription is made of when it is an Advanced Commerce one (`commerce-subscribe`).
    var commerce: SimulatedCommerce?

    /// A fresh subscription to `productId`, starting at `nowMs` with transaction `transactionId`.
    init(
        productId: String, transactionId: String, fixedPeriodMs: Int64?, nowMs: Int64, user: String, environment: String,
        bundleId: String, trial: Bool, familyShared: Bool = false, commerce: SimulatedCommerce? = nil
    ) {
        originalTransactionId = transactionId
        self.productId = productId
        autoRenewProductId = productId
        self.transactionId = transactionId
        self.fixedPeriodMs = fixedPeriodMs
        purchaseMs = nowMs
        expiresMs = nowMs
        originalPurchaseMs = nowMs
        self.trial = trial
        self.familyShared = familyShared
        appAccountToken = UUID(uuidString: user)?.uuidString.lowercased() ?? SimulatedSubscription.token(for: user)
        self.environment = environment
        self.bundleId = bundleId
        self.commerce = commerce
        expiresMs = length(of: productId).end(after: nowMs)
        priceMilliunits = trial ? 0 : price(of: productId)
    }

    /// What the next step's `signedDate` must come after: the last step's, or, in a story 0.1.0
    /// saved, its clock (its last step may have been signed ahead of the wall clock).
    var signedAfterMs: Int64 { lastSignedMs ?? clockMs ?? 0 }

    /// A stable UUID for an `app_user_id` that is not one (Apple's `appAccountToken` must be a UUID).
    static func token(for user: String) -> String { EventID.nameBased(user, in: "revenuedot:simulator") }

    // MARK: - Periods and prices

    /// How long a period of `productId` lasts in this story: `--period`, else the Advanced
    /// Commerce period, else what the product's name says.
    func length(of productId: String) -> PeriodLength {
        if let fixedPeriodMs { return .milliseconds(fixedPeriodMs) }
        if let commerce { return PeriodLength(commerce.current.period) }
        return SimulatedProduct(id: productId).length
    }

    /// What a period of `productId` costs now: the current Advanced Commerce items, the price
    /// the customer accepted, else the list price.
    func price(of productId: String) -> Int64 {
        commerce?.current.priceMilliunits ?? acceptedPrices?[productId] ?? SimulatedProduct(id: productId).listPriceMilliunits
    }

    /// What the current period cost.
    var currentPriceMilliunits: Int64 { priceMilliunits ?? (trial ? 0 : SimulatedProduct(id: productId).listPriceMilliunits) }

    /// What the next renewal charges: the increased price while the customer has not answered yet.
    var renewalPriceMilliunits: Int64 {
        if let commerce { return commerce.next.priceMilliunits }
        let price = price(of: autoRenewProductId)
        return priceIncreasePending ? SimulatedProduct.increased(price) : price
    }

    /// Starts the next transaction of the subscription, `transactionId`: `productId` from
    /// `startMs` for one period, at its price now. Earlier periods keep what they cost.
    mutating func nextPeriod(productId: String, transactionId: String, startMs: Int64, renewal: Bool) {
        transactions += 1
        renewedByTheStore = renewal
        self.transactionId = transactionId
        self.productId = productId
        purchaseMs = startMs
        expiresMs = length(of: productId).end(after: startMs)
        priceMilliunits = price(of: productId)
        trial = false
        billingIssue = false
        graceEndsMs = nil
        priceIncreasePending = false
        priceIncreaseAccepted = nil
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
            "environment": .string(environment),
            "transactionReason": .string(renewedByTheStore ?? (transactions > 1) ? "RENEWAL" : "PURCHASE"),
            "storefront": .string("USA"), "storefrontId": .string("143441"),
            "price": .integer(currentPriceMilliunits), "currency": .string("USD"),
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
        members["advancedCommerceInfo"] = commerce?.transactionInfo
        return .object(members)
    }

    func renewalJSON(signedMs: Int64, expirationIntent: Int? = nil) -> JSONValue {
        var members: [String: JSONValue] = [
            "originalTransactionId": .string(originalTransactionId), "productId": .string(productId),
            "autoRenewProductId": .string(autoRenewProductId), "autoRenewStatus": .integer(autoRenew ? 1 : 0),
            "signedDate": .integer(signedMs), "environment": .string(environment), "renewalDate": .integer(expiresMs),
            "recentSubscriptionStartDate": .integer(purchaseMs), "isInBillingRetryPeriod": .bool(billingIssue),
            "appAccountToken": .string(appAccountToken), "renewalPrice": .integer(renewalPriceMilliunits),
            "currency": .string("USD"),
        ]
        if let graceEndsMs { members["gracePeriodExpiresDate"] = .integer(graceEndsMs) }
        if priceIncreasePending { members["priceIncreaseStatus"] = .integer(0) }
        if priceIncreaseAccepted == true { members["priceIncreaseStatus"] = .integer(1) }
        if let expirationIntent { members["expirationIntent"] = .integer(Int64(expirationIntent)) }
        members["advancedCommerceInfo"] = commerce?.renewalInfo
        return .object(members)
    }
}
