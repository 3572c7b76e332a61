/// The request the app sends to sell one item once (through the generic consumable product).
///
/// https://developer.apple.com/documentation/advancedcommerceapi/onetimechargecreaterequest
public struct OneTimeChargeCreateRequest: AdvancedCommerceInAppRequest {
    public static let expectedOperation: InAppOperation = .createOneTimeCharge

    /// Required, `CREATE_ONE_TIME_CHARGE`.
    public var operation: InAppOperation?
    /// Required, `"1"`.
    public var version: String?
    /// Required.
    public var requestInfo: RequestInfo?
    /// Required, ISO 4217.
    public var currency: String?
    /// Required; Apple's one-time tax codes end in `-2`.
    public var taxCode: String?
    /// ISO 3166-1 alpha-3.
    public var storefront: String?
    /// Required; a single object, not an array.
    public var item: OneTimeChargeItem?

    public init(
        operation: InAppOperation? = Self.expectedOperation,
        version: String? = Self.currentVersion,
        requestInfo: RequestInfo? = nil,
        currency: String? = nil,
        taxCode: String? = nil,
        storefront: String? = nil,
        item: OneTimeChargeItem? = nil
    ) {
        self.operation = operation
        self.version = version
        self.requestInfo = requestInfo
        self.currency = currency
        self.taxCode = taxCode
        self.storefront = storefront
        self.item = item
    }
}
