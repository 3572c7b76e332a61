import AppStore

/// An entitlement granted by the app's backend, not bought (RevenueCat's promotional
/// entitlements): shown under `subscriptions` as store `promotional`, with its own events, and
/// ended by the scheduler or a revoke.
public struct PromotionalGrant: Codable, Hashable, Sendable {
    /// 32 hexadecimal digits, made by the API when granting: its `store_transaction_id`.
    public var id: String
    public var entitlementId: String
    /// `rc_promo_<entitlement>_<duration>` (`custom` for an explicit end), as RevenueCat names it.
    public var productId: String
    public var startMs: Int64
    public var endMs: Int64
    public var revokedAtMs: Int64?
    /// Whether its EXPIRATION was recorded.
    public var expired: Bool?

    public init(id: String, entitlementId: String, productId: String, startMs: Int64, endMs: Int64) {
        self.id = id
        self.entitlementId = entitlementId
        self.productId = productId
        self.startMs = startMs
        self.endMs = endMs
    }

    /// When access ends: its end, or its revoke when earlier.
    public var accessEndsAtMs: Int64 { min(endMs, revokedAtMs ?? .max) }

    /// RevenueCat's durations and their lengths in days (`lifetime` is 200 years).
    public static let durations: [String: Int64] = [
        "daily": 1, "three_day": 3, "weekly": 7, "two_week": 14, "monthly": 31, "two_month": 61, "three_month": 92,
        "six_month": 183, "yearly": 365, "lifetime": 200 * 365,
    ]

    /// The timer that records its EXPIRATION: `promotional/<id>/<customer>`.
    public func timer(customer: String) -> ExpirationTimer {
        ExpirationTimer(originalTransactionId: "\(Self.timerPrefix)\(id)/\(customer)", fireAtMs: endMs)
    }

    static let timerPrefix = "promotional/"

    /// The grant and customer a promotional timer names; nil for a subscription's timer.
    public static func parse(timer: ExpirationTimer) -> (grantId: String, customer: String)? {
        guard timer.originalTransactionId.hasPrefix(timerPrefix) else { return nil }
        let rest = timer.originalTransactionId.dropFirst(timerPrefix.count)
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        return (String(rest[..<slash]), String(rest[rest.index(after: slash)...]))
    }

    /// How `GET /v1/subscribers` shows it: a subscription of store `promotional`, in production.
    public var view: PurchaseView {
        var view = PurchaseView(
            kind: .subscription, id: id, productId: productId, environment: .production, ownershipType: .purchased,
            transactionId: id, purchaseDateMs: startMs, originalPurchaseDateMs: startMs, expiresDateMs: accessEndsAtMs,
            accessEndsAtMs: accessEndsAtMs, gracePeriodAccessEndsAtMs: nil, periodType: .normal, unsubscribeDetectedAtMs: nil,
            billingIssueDetectedAtMs: nil, refundedAtMs: nil, priceMilliunits: nil, currency: nil, advancedCommerce: nil)
        view.store = "promotional"
        return view
    }

    /// An event about it, `store` PROMOTIONAL and `period_type` PROMOTIONAL, as RevenueCat sends.
    func event(_ type: EventType, cause: String) -> Event {
        var event = Event(type: type, id: EventID.make(cause: "promotional/\(id)/\(cause)"))
        event.store = "PROMOTIONAL"
        event.periodType = .promotional
        event.environment = .production
        event.productId = productId
        event.purchasedAtMs = startMs
        event.expirationAtMs = accessEndsAtMs
        event.transactionId = id
        event.originalTransactionId = id
        event.isFamilyShare = false
        event.setPrice(milliunits: 0)
        return event
    }
}
