/// An item of an existing subscription replaced by another (upgrade, downgrade or offer).
///
/// https://developer.apple.com/documentation/advancedcommerceapi/subscriptionmodifychangeitem
public struct SubscriptionModifyChangeItem: Codable, Hashable, Sendable {
    /// Required, at most 128 characters; the SKU being replaced.
    public var currentSKU: String?
    /// Required, at most 128 characters; the new SKU.
    public var sku: String?
    /// Required, at most 30 characters.
    public var displayName: String?
    /// Required, at most 45 characters.
    public var description: String?
    /// Required.
    public var effective: Effective?
    /// Required, in milliunits.
    public var price: Int64?
    /// Required.
    public var reason: ChangeReason?
    public var offer: Offer?
    /// In milliunits.
    public var proratedPrice: Int64?

    enum CodingKeys: String, CodingKey {
        case currentSKU
        case sku = "SKU"
        case displayName
        case description
        case effective
        case price
        case reason
        case offer
        case proratedPrice
    }

    public init(
        currentSKU: String? = nil,
        sku: String? = nil,
        displayName: String? = nil,
        description: String? = nil,
        effective: Effective? = nil,
        price: Int64? = nil,
        reason: ChangeReason? = nil,
        offer: Offer? = nil,
        proratedPrice: Int64? = nil
    ) {
        self.currentSKU = currentSKU
        self.sku = sku
        self.displayName = displayName
        self.description = description
        self.effective = effective
        self.price = price
        self.reason = reason
        self.offer = offer
        self.proratedPrice = proratedPrice
    }
}
