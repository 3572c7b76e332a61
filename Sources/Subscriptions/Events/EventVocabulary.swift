/// The kind of a RevenueCat-compatible event.
///
/// Only the types the App Store flow produces; the raw values are RevenueCat's `type` strings.
/// https://www.revenuecat.com/docs/integrations/webhooks/event-types-and-fields
public enum EventType: String, Codable, Hashable, Sendable, CaseIterable {
    case test = "TEST"
    case initialPurchase = "INITIAL_PURCHASE"
    case renewal = "RENEWAL"
    case cancellation = "CANCELLATION"
    case uncancellation = "UNCANCELLATION"
    case nonRenewingPurchase = "NON_RENEWING_PURCHASE"
    case expiration = "EXPIRATION"
    case billingIssue = "BILLING_ISSUE"
    case productChange = "PRODUCT_CHANGE"
    case transfer = "TRANSFER"
    case subscriptionExtended = "SUBSCRIPTION_EXTENDED"
    case refundReversed = "REFUND_REVERSED"
}

/// Why a subscription was cancelled or expired: RevenueCat's `cancel_reason` / `expiration_reason`.
///
/// `DEVELOPER_INITIATED` exists for compatibility; the App Store flow never produces it.
public enum LapseReason: String, Codable, Hashable, Sendable, CaseIterable {
    case unsubscribe = "UNSUBSCRIBE"
    case billingError = "BILLING_ERROR"
    case developerInitiated = "DEVELOPER_INITIATED"
    case priceIncrease = "PRICE_INCREASE"
    case customerSupport = "CUSTOMER_SUPPORT"
    case unknown = "UNKNOWN"
}

/// The kind of period a purchase is in: RevenueCat's `period_type`.
public enum PeriodType: String, Codable, Hashable, Sendable, CaseIterable {
    case trial = "TRIAL"
    case intro = "INTRO"
    case normal = "NORMAL"
    case promotional = "PROMOTIONAL"
    case prepaid = "PREPAID"
}

/// RevenueCat's `environment`: Apple's `Sandbox`, `Xcode` and `LocalTesting` all count as sandbox.
public enum EventEnvironment: String, Codable, Hashable, Sendable {
    case sandbox = "SANDBOX"
    case production = "PRODUCTION"
}
