/// The request the app sends to start (or, with `previousTransactionId`, resume) a subscription.
///
/// https://developer.apple.com/documentation/advancedcommerceapi/subscriptioncreaterequest
public struct SubscriptionCreateRequest: AdvancedCommerceInAppRequest {
    public static let expectedOperation: InAppOperation = .createSubscription

    /// Required, `CREATE_SUBSCRIPTION`.
    public var operation: InAppOperation?
    /// Required, `"1"`.
    public var version: String?
    /// Required; send `consistencyToken` only when resubscribing.
    public var requestInfo: RequestInfo?
    /// Required, ISO 4217.
    public var currency: String?
    /// Required.
    public var taxCode: String?
    /// Required.
    public var descriptors: Descriptors?
    /// Required.
    public var period: Period?
    /// Required, non-empty.
    public var items: [SubscriptionCreateItem]?
    /// The transaction of the expired subscription being resumed.
    public var previousTransactionId: String?
    /// ISO 3166-1 alpha-3.
    public var storefront: String?

    public init(
        operation: InAppOperation? = Self.expectedOperation,
        version: String? = Self.currentVersion,
        requestInfo: RequestInfo? = nil,
        currency: String? = nil,
        taxCode: String? = nil,
        descriptors: Descriptors? = nil,
        period: Period? = nil,
        items: [SubscriptionCreateItem]? = nil,
        previousTransactionId: String? = nil,
        storefront: String? = nil
    ) {
        self.operation = operation
        self.version = version
        self.requestInfo = requestInfo
        self.currency = currency
        self.taxCode = taxCode
        self.descriptors = descriptors
        self.period = period
        self.items = items
        self.previousTransactionId = previousTransactionId
        self.storefront = storefront
    }
}
