/// The request the app sends to turn auto-renew back on for a subscription.
///
/// https://developer.apple.com/documentation/advancedcommerceapi/subscriptionreactivateinapprequest
public struct SubscriptionReactivateInAppRequest: AdvancedCommerceInAppRequest {
    public static let expectedOperation: InAppOperation = .reactivateSubscription

    /// Required, `REACTIVATE_SUBSCRIPTION`.
    public var operation: InAppOperation?
    /// Required, `"1"`.
    public var version: String?
    /// Required.
    public var requestInfo: RequestInfo?
    /// Required.
    public var transactionId: String?
    /// Non-empty when present (API 1.1+); the items to renew.
    public var items: [SubscriptionReactivateItem]?
    /// ISO 3166-1 alpha-3.
    public var storefront: String?

    public init(
        operation: InAppOperation? = Self.expectedOperation,
        version: String? = Self.currentVersion,
        requestInfo: RequestInfo? = nil,
        transactionId: String? = nil,
        items: [SubscriptionReactivateItem]? = nil,
        storefront: String? = nil
    ) {
        self.operation = operation
        self.version = version
        self.requestInfo = requestInfo
        self.transactionId = transactionId
        self.items = items
        self.storefront = storefront
    }
}
