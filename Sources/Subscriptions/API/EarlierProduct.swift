import AppStore
import JSON

/// A product a subscription had in an earlier period and has no longer (an upgrade, a
/// downgrade, a crossgrade): RevenueCat keeps it under `subscriptions`, keyed by product, with
/// its entitlements listed as expired.
public struct EarlierProduct: Codable, Hashable, Sendable {
    public var productId: String
    /// The product's latest period.
    public var transactionId: String?
    public var purchaseDateMs: Int64?
    /// When its access ended: the period's expiry, or the start of the period that replaced it
    /// (an upgrade ends the old plan at once), whichever came first.
    public var expiresDateMs: Int64?
    public var periodType: PeriodType
    /// Its latest period's price (milliunits) and currency, when known.
    public var priceMilliunits: Int64? = nil
    public var currency: String? = nil
    /// When its latest period was refunded or revoked.
    public var refundedAtMs: Int64? = nil
    /// Where its last grace period ended (`SubscriptionState.endedGracePeriodEndMs(ofProduct:)`).
    public var gracePeriodEndedMs: Int64? = nil

    /// Every member, for the store's reader of stored views.
    package init(
        productId: String, transactionId: String?, purchaseDateMs: Int64?, expiresDateMs: Int64?, periodType: PeriodType,
        priceMilliunits: Int64? = nil, currency: String? = nil, refundedAtMs: Int64? = nil, gracePeriodEndedMs: Int64? = nil
    ) {
        self.productId = productId
        self.transactionId = transactionId
        self.purchaseDateMs = purchaseDateMs
        self.expiresDateMs = expiresDateMs
        self.periodType = periodType
        self.priceMilliunits = priceMilliunits
        self.currency = currency
        self.refundedAtMs = refundedAtMs
        self.gracePeriodEndedMs = gracePeriodEndedMs
    }
}

extension SubscriptionState {
    /// Every product of an earlier period other than the current one, each with its latest
    /// period, by product id; empty while the subscription never changed plans. Periods
    /// summarized before their product was kept (`EarlierPeriod.productId` nil) are not known.
    public var earlierProducts: [EarlierProduct] {
        guard let current = productId, let currentStart = purchaseDateMs else { return [] }
        // A period ends, at the latest, when the next one starts (an upgrade ends the old plan at once).
        let starts = periodKeys().compactMap(\.purchaseDate).sorted()
        var latest: [String: EarlierProduct] = [:]
        func consider(
            _ product: String?, _ transactionId: String?, _ purchase: Int64?, _ expires: Int64?, _ type: PeriodType,
            price: Int64?, currency: String?, refunded: Int64? = nil
        ) {
            guard let product, product != current, let purchase, purchase < currentStart else { return }
            if let known = latest[product], let knownPurchase = known.purchaseDateMs, knownPurchase >= purchase { return }
            let next = starts.first { $0 > purchase } ?? currentStart
            latest[product] = EarlierProduct(
                productId: product, transactionId: transactionId, purchaseDateMs: purchase,
                expiresDateMs: min(expires ?? next, next), periodType: type, priceMilliunits: price, currency: currency,
                refundedAtMs: refunded)
        }
        for transaction in transactions.values where transaction.transactionId != transactionId {
            consider(
                transaction.productId, transaction.transactionId, transaction.purchaseDate,
                transaction.revocationDate.map { min($0, transaction.expiresDate ?? $0) } ?? transaction.expiresDate,
                Self.periodType(of: transaction), price: transaction.price, currency: transaction.currency,
                refunded: transaction.revocationDate)
        }
        for period in (earlierPeriods ?? [:]).values {
            consider(
                period.productId, period.transactionId, period.purchaseDate, period.expiresDate, period.periodType,
                price: period.price, currency: period.currency)
        }
        for product in latest.keys { latest[product]?.gracePeriodEndedMs = endedGracePeriodEndMs(ofProduct: product) }
        return latest.values.sorted { JSONValue.precedesInUTF8($0.productId, $1.productId) }
    }
}

extension PurchaseView {
    /// The view `GET /v1/subscribers` shows of an earlier product of this subscription.
    public func view(of earlier: EarlierProduct) -> PurchaseView {
        PurchaseView(
            kind: .subscription, id: id, productId: earlier.productId, environment: environment, ownershipType: ownershipType,
            transactionId: earlier.transactionId, purchaseDateMs: earlier.purchaseDateMs,
            originalPurchaseDateMs: originalPurchaseDateMs, expiresDateMs: earlier.expiresDateMs,
            accessEndsAtMs: earlier.expiresDateMs, gracePeriodAccessEndsAtMs: nil, periodType: earlier.periodType,
            unsubscribeDetectedAtMs: nil, billingIssueDetectedAtMs: nil, refundedAtMs: earlier.refundedAtMs,
            priceMilliunits: earlier.priceMilliunits, currency: earlier.currency, advancedCommerce: nil,
            lastGracePeriodAccessEndsAtMs: earlier.gracePeriodEndedMs)
    }

    /// This view and the views of its earlier products.
    public var withEarlierProducts: [PurchaseView] {
        [self] + (earlierProducts ?? []).map(view(of:))
    }
}
