/// An item added to an existing subscription; it takes effect immediately.
///
/// https://developer.apple.com/documentation/advancedcommerceapi/subscriptionmodifyadditem
public struct SubscriptionModifyAddItem: Codable, Hashable, Sendable {
    /// Required, at most 128 characters.
    public var sku: String?
    /// Required, at most 30 characters.
    public var displayName: String?
    /// Required, at most 45 characters.
    public var description: String?
    /// Required, in milliunits; charged from the next period.
    public var price: Int64?
    public var offer: Offer?
    /// In milliunits; what to charge for the rest of the current period instead of Apple's proration.
    public var proratedPrice: Int64?

    enum CodingKeys: String, CodingKey {
        case sku = "SKU"
        case displayName
        case description
        case price
        case offer
        case proratedPrice
    }

    public init(
        sku: String? = nil,
        displayName: String? = nil,
        description: String? = nil,
        price: Int64? = nil,
        offer: Offer? = nil,
        proratedPrice: Int64? = nil
    ) {
        self.sku = sku
        self.displayName = displayName
        self.description = description
        self.price = price
        self.offer = offer
        self.proratedPrice = proratedPrice
    }
}
