/// One SKU of an Advanced Commerce subscription at its next renewal.
///
/// https://developer.apple.com/documentation/appstoreserverapi/advancedcommercerenewalitem
public struct RenewalAdvancedCommerceItem: Codable, Hashable, Sendable {
    /// Your identifier for the item, JSON key `SKU`.
    public var sku: String?
    public var description: String?
    public var displayName: String?
    public var offer: AdvancedCommerceOffer?
    /// Milliunits of the renewal's `currency`.
    public var price: Int64?
    public var priceIncreaseInfo: AdvancedCommercePriceIncreaseInfo?

    public init(
        sku: String? = nil,
        description: String? = nil,
        displayName: String? = nil,
        offer: AdvancedCommerceOffer? = nil,
        price: Int64? = nil,
        priceIncreaseInfo: AdvancedCommercePriceIncreaseInfo? = nil
    ) {
        self.sku = sku
        self.description = description
        self.displayName = displayName
        self.offer = offer
        self.price = price
        self.priceIncreaseInfo = priceIncreaseInfo
    }

    private enum CodingKeys: String, CodingKey {
        case sku = "SKU"
        case description
        case displayName
        case offer
        case price
        case priceIncreaseInfo
    }
}
