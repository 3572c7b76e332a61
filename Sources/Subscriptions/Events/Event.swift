import Foundation

/// One RevenueCat-compatible webhook event, ready to be wrapped in `{"api_version":"1.0","event":…}`.
///
/// Field names encode as RevenueCat's snake_case; absent values are omitted by the synthesized
/// encoder (an encoder that must write explicit `null`s can do so from `CodingKeys`). The reducer
/// fills every field it can derive from Apple's data; `app_id` comes from the ledger's
/// configuration. `sequence` is RevenueDot's addition: per customer, gapless and increasing.
///
/// https://www.revenuecat.com/docs/integrations/webhooks/event-types-and-fields
public struct Event: Codable, Hashable, Sendable {
    public var type: EventType
    /// Deterministic from the event's cause (see `EventID`), so re-processing repeats it exactly.
    public var id: String
    public var appId: String?
    /// The `now` of the input that produced the event, in UNIX milliseconds.
    public var eventTimestampMs: Int64
    /// The owning customer; absent on `TRANSFER` (as in RevenueCat) and on `TEST`.
    public var appUserId: String?
    public var originalAppUserId: String?
    public var aliases: [String]?
    public var productId: String?
    /// On `PRODUCT_CHANGE`: the product the customer moves to.
    public var newProductId: String?
    /// The configured entitlements of `productId`; absent when the product is mapped to none.
    public var entitlementIds: [String]?
    public var periodType: PeriodType?
    public var purchasedAtMs: Int64?
    public var expirationAtMs: Int64?
    /// Only on `BILLING_ISSUE`, when Apple granted a grace period.
    public var gracePeriodExpirationAtMs: Int64?
    public var store: String = "APP_STORE"
    public var environment: EventEnvironment?
    public var transactionId: String?
    public var originalTransactionId: String?
    public var isFamilyShare: Bool?
    /// Only on `RENEWAL`.
    public var isTrialConversion: Bool?
    /// Only on `CANCELLATION`.
    public var cancelReason: LapseReason?
    /// Only on `EXPIRATION`.
    public var expirationReason: LapseReason?
    /// ISO 4217.
    public var currency: String?
    /// The price in `currency`; negative for refunds, 0 for events that move no money.
    public var priceInPurchasedCurrency: Decimal?
    /// USD: equal to `priceInPurchasedCurrency` when `currency` is USD, else absent (no exchange rates).
    public var price: Decimal?
    /// Apple's `offerIdentifier`.
    public var offerCode: String?
    /// The offering the purchase was sold from, as the app said when it posted the purchase.
    public var presentedOfferingId: String?
    /// ISO 3166-1 alpha-2 from the transaction's storefront (alpha-3 kept if unmapped).
    public var countryCode: String?
    /// 1 for the first period; counts the periods known for the subscription.
    public var renewalNumber: Int?
    /// Only on `TRANSFER`.
    public var transferredFrom: [String]?
    /// Only on `TRANSFER`.
    public var transferredTo: [String]?
    /// Per customer, gapless, increasing; absent on `TEST` (which belongs to no customer).
    public var sequence: Int64?
    /// The share of `price` that is tax (VAT/GST), estimated from the storefront (`TaxRates`).
    public var taxPercentage: Decimal?
    /// The share of `price` the App Store keeps: 30%, or 15% after a subscriber's first paid year
    /// or in the Small Business Program, taken after tax, so `nominal × (1 − tax_percentage)`.
    public var commissionPercentage: Decimal?
    /// 1 − the nominal commission (0.7 or 0.85), before tax: RevenueCat's deprecated field.
    public var takehomePercentage: Decimal?
    /// The customer's attributes when the event was made (RevenueCat's `subscriber_attributes`).
    public var subscriberAttributes: [String: SubscriberAttribute]?

    /// An event with only its identity; the reducer fills the rest.
    public init(type: EventType, id: String, eventTimestampMs: Int64 = 0) {
        self.type = type
        self.id = id
        self.eventTimestampMs = eventTimestampMs
    }

    /// The customer whose stream the event belongs to: the owner, or a transfer's destination.
    public var customerId: String? { appUserId ?? transferredTo?.first }

    public enum CodingKeys: String, CodingKey, CaseIterable {
        case type
        case id
        case appId = "app_id"
        case eventTimestampMs = "event_timestamp_ms"
        case appUserId = "app_user_id"
        case originalAppUserId = "original_app_user_id"
        case aliases
        case productId = "product_id"
        case newProductId = "new_product_id"
        case entitlementIds = "entitlement_ids"
        case periodType = "period_type"
        case purchasedAtMs = "purchased_at_ms"
        case expirationAtMs = "expiration_at_ms"
        case gracePeriodExpirationAtMs = "grace_period_expiration_at_ms"
        case store
        case environment
        case transactionId = "transaction_id"
        case originalTransactionId = "original_transaction_id"
        case isFamilyShare = "is_family_share"
        case isTrialConversion = "is_trial_conversion"
        case cancelReason = "cancel_reason"
        case expirationReason = "expiration_reason"
        case currency
        case priceInPurchasedCurrency = "price_in_purchased_currency"
        case price
        case offerCode = "offer_code"
        case presentedOfferingId = "presented_offering_id"
        case countryCode = "country_code"
        case renewalNumber = "renewal_number"
        case transferredFrom = "transferred_from"
        case transferredTo = "transferred_to"
        case sequence
        case subscriberAttributes = "subscriber_attributes"
        case taxPercentage = "tax_percentage"
        case commissionPercentage = "commission_percentage"
        case takehomePercentage = "takehome_percentage"
    }
}
