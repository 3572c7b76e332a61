/// The request the app sends to change an active subscription: items, period, or names.
///
/// https://developer.apple.com/documentation/advancedcommerceapi/subscriptionmodifyinapprequest
public struct SubscriptionModifyInAppRequest: AdvancedCommerceInAppRequest {
    public static let expectedOperation: InAppOperation = .modifySubscription

    /// Required, `MODIFY_SUBSCRIPTION`.
    public var operation: InAppOperation?
    /// Required, `"1"`.
    public var version: String?
    /// Required.
    public var requestInfo: RequestInfo?
    /// Required; the original or any later transaction of the subscription.
    public var transactionId: String?
    /// Required; `false` starts a new billing cycle now.
    public var retainBillingCycle: Bool?
    /// ISO 4217.
    public var currency: String?
    /// ISO 3166-1 alpha-3.
    public var storefront: String?
    public var taxCode: String?
    public var descriptors: SubscriptionModifyDescriptors?
    public var periodChange: SubscriptionModifyPeriodChange?
    /// Non-empty when present.
    public var addItems: [SubscriptionModifyAddItem]?
    /// Non-empty when present.
    public var changeItems: [SubscriptionModifyChangeItem]?
    /// Non-empty when present.
    public var removeItems: [SubscriptionModifyRemoveItem]?

    public init(
        operation: InAppOperation? = Self.expectedOperation,
        version: String? = Self.currentVersion,
        requestInfo: RequestInfo? = nil,
        transactionId: String? = nil,
        retainBillingCycle: Bool? = nil,
        currency: String? = nil,
        storefront: String? = nil,
        taxCode: String? = nil,
        descriptors: SubscriptionModifyDescriptors? = nil,
        periodChange: SubscriptionModifyPeriodChange? = nil,
        addItems: [SubscriptionModifyAddItem]? = nil,
        changeItems: [SubscriptionModifyChangeItem]? = nil,
        removeItems: [SubscriptionModifyRemoveItem]? = nil
    ) {
        self.operation = operation
        self.version = version
        self.requestInfo = requestInfo
        self.transactionId = transactionId
        self.retainBillingCycle = retainBillingCycle
        self.currency = currency
        self.storefront = storefront
        self.taxCode = taxCode
        self.descriptors = descriptors
        self.periodChange = periodChange
        self.addItems = addItems
        self.changeItems = changeItems
        self.removeItems = removeItems
    }
}
