/// The single item a one-time charge sells.
///
/// https://developer.apple.com/documentation/advancedcommerceapi/onetimechargeitem
public struct OneTimeChargeItem: Codable, Hashable, Sendable {
    /// Required, at most 128 characters; your identifier, never shown to customers.
    public var sku: String?
    /// Required, at most 30 characters.
    public var displayName: String?
    /// Required, at most 45 characters.
    public var description: String?
    /// Required, in milliunits.
    public var price: Int64?

    enum CodingKeys: String, CodingKey {
        case sku = "SKU"
        case displayName
        case description
        case price
    }

    public init(sku: String? = nil, displayName: String? = nil, description: String? = nil, price: Int64? = nil) {
        self.sku = sku
        self.displayName = displayName
        self.description = description
        self.price = price
    }
}
