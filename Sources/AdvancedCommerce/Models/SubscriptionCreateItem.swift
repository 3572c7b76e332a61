/// One item (tier or add-on) of a new subscription.
///
/// https://developer.apple.com/documentation/advancedcommerceapi/subscriptioncreateitem
public struct SubscriptionCreateItem: Codable, Hashable, Sendable {
    /// Required, at most 128 characters.
    public var sku: String?
    /// Required, at most 30 characters; must differ from the subscription's `descriptors.displayName`.
    public var displayName: String?
    /// Required, at most 45 characters.
    public var description: String?
    /// Required, in milliunits per period.
    public var price: Int64?
    public var offer: Offer?

    enum CodingKeys: String, CodingKey {
        case sku = "SKU"
        case displayName
        case description
        case price
        case offer
    }

    public init(
        sku: String? = nil,
        displayName: String? = nil,
        description: String? = nil,
        price: Int64? = nil,
        offer: Offer? = nil
    ) {
        self.sku = sku
        self.displayName = displayName
        self.description = description
        self.price = price
        self.offer = offer
    }
}
