import AppStore
import JSON

/// What `GET /v1/subscribers` shows of one purchase, with nothing that depends on the clock but
/// the one comparison `hasAccess(atMs:)` makes.
///
/// A projection of a `SubscriptionState` or `OneTimePurchase`, made when the purchase is written,
/// so answering a customer reads a few small documents instead of decoding every stored snapshot.
/// Every value comes from the same computed properties the reducer uses (`accessEndsAtMs`,
/// `gracePeriodAccessEndsAtMs`, the current period's fields), so the view cannot drift from
/// the state; `SubscriberInfo` renders views only.
public struct PurchaseView: Codable, Hashable, Sendable {
    /// Whether the view is of a subscription or of a one-time purchase.
    public enum Kind: String, Codable, Hashable, Sendable {
        case subscription
        case oneTime = "one_time"
    }

    public var kind: Kind
    /// The `originalTransactionId` of a subscription, the `transactionId` of a one-time purchase.
    public var id: String
    public var productId: String?
    public var environment: AppStoreEnvironment?
    public var ownershipType: InAppOwnershipType?
    /// The current period's (or the purchase's) `transactionId`.
    public var transactionId: String?
    public var purchaseDateMs: Int64?
    public var originalPurchaseDateMs: Int64?
    public var expiresDateMs: Int64?
    /// When access ends, grace included (`SubscriptionState.accessEndsAtMs`); for a one-time
    /// purchase, when a refund or revocation ended it, nil while in force.
    public var accessEndsAtMs: Int64?
    public var gracePeriodAccessEndsAtMs: Int64?
    /// RevenueCat's `grace_period_expires_date` (`SubscriptionState.lastGracePeriodAccessEndsAtMs`).
    public var lastGracePeriodAccessEndsAtMs: Int64? = nil
    public var periodType: PeriodType?
    public var unsubscribeDetectedAtMs: Int64?
    public var billingIssueDetectedAtMs: Int64?
    public var refundedAtMs: Int64?
    public var priceMilliunits: Int64?
    public var currency: String?
    /// The rendered `advanced_commerce` object of a subscription that has one.
    public var advancedCommerce: JSONValue?
    /// The products of earlier periods (`SubscriptionState.earlierProducts`); nil when none.
    public var earlierProducts: [EarlierProduct]? = nil
    /// RevenueCat's `store`: nil for the App Store, `promotional` for a grant.
    public var store: String? = nil

    /// Every member, for the store's reader of stored views.
    package init(
        kind: Kind, id: String, productId: String?, environment: AppStoreEnvironment?, ownershipType: InAppOwnershipType?,
        transactionId: String?, purchaseDateMs: Int64?, originalPurchaseDateMs: Int64?, expiresDateMs: Int64?,
        accessEndsAtMs: Int64?, gracePeriodAccessEndsAtMs: Int64?, periodType: PeriodType?, unsubscribeDetectedAtMs: Int64?,
        billingIssueDetectedAtMs: Int64?, refundedAtMs: Int64?, priceMilliunits: Int64?, currency: String?,
        advancedCommerce: JSONValue?, earlierProducts: [EarlierProduct]? = nil, store: String? = nil,
        lastGracePeriodAccessEndsAtMs: Int64? = nil
    ) {
        self.kind = kind
        self.id = id
        self.productId = productId
        self.environment = environment
        self.ownershipType = ownershipType
        self.transactionId = transactionId
        self.purchaseDateMs = purchaseDateMs
        self.originalPurchaseDateMs = originalPurchaseDateMs
        self.expiresDateMs = expiresDateMs
        self.accessEndsAtMs = accessEndsAtMs
        self.gracePeriodAccessEndsAtMs = gracePeriodAccessEndsAtMs
        self.periodType = periodType
        self.unsubscribeDetectedAtMs = unsubscribeDetectedAtMs
        self.billingIssueDetectedAtMs = billingIssueDetectedAtMs
        self.refundedAtMs = refundedAtMs
        self.priceMilliunits = priceMilliunits
        self.currency = currency
        self.advancedCommerce = advancedCommerce
        self.earlierProducts = earlierProducts
        self.store = store
        self.lastGracePeriodAccessEndsAtMs = lastGracePeriodAccessEndsAtMs
    }

    /// Whether the purchase gives access at `nowMs`: a subscription until `accessEndsAtMs`
    /// (never before a period with an expiry is known), a one-time purchase until a refund or
    /// revocation.
    public func hasAccess(atMs nowMs: Int64) -> Bool {
        switch kind {
        case .subscription: accessEndsAtMs.map { nowMs < $0 } ?? false
        case .oneTime: accessEndsAtMs.map { nowMs < $0 } ?? true
        }
    }
}

extension SubscriptionState {
    /// This subscription as `GET /v1/subscribers` shows it.
    public var view: PurchaseView {
        PurchaseView(
            kind: .subscription, id: originalTransactionId, productId: productId, environment: environment,
            ownershipType: ownershipType, transactionId: transactionId, purchaseDateMs: purchaseDateMs,
            originalPurchaseDateMs: originalPurchaseDateMs, expiresDateMs: expiresDateMs, accessEndsAtMs: accessEndsAtMs,
            gracePeriodAccessEndsAtMs: gracePeriodAccessEndsAtMs, periodType: periodType,
            unsubscribeDetectedAtMs: unsubscribeDetectedAtMs, billingIssueDetectedAtMs: billingIssueDetectedAtMs,
            refundedAtMs: refundedAtMs ?? revokedAtMs, priceMilliunits: priceMilliunits, currency: currency,
            advancedCommerce: SubscriberInfo.advancedCommerce(self),
            earlierProducts: earlierProducts.isEmpty ? nil : earlierProducts,
            lastGracePeriodAccessEndsAtMs: lastGracePeriodAccessEndsAtMs)
    }
}

extension OneTimePurchase {
    /// This purchase as `GET /v1/subscribers` shows it; nil until a transaction recorded it.
    public var view: PurchaseView? {
        guard let transaction else { return nil }
        return PurchaseView(
            kind: .oneTime, id: transactionId, productId: productId, environment: environment,
            ownershipType: ownershipType, transactionId: transaction.transactionId ?? transactionId,
            purchaseDateMs: purchaseDateMs, originalPurchaseDateMs: transaction.originalPurchaseDate,
            expiresDateMs: nil, accessEndsAtMs: accessEndsAtMs, gracePeriodAccessEndsAtMs: nil, periodType: nil,
            unsubscribeDetectedAtMs: nil, billingIssueDetectedAtMs: nil, refundedAtMs: refundedAtMs,
            priceMilliunits: priceMilliunits, currency: currency, advancedCommerce: nil)
    }
}
