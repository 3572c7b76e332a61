/// One SKU of an Advanced Commerce transaction.
///
/// https://developer.apple.com/documentation/appstoreserverapi/advancedcommercetransactionitem
public struct TransactionAdvancedCommerceItem: Codable, Hashable, Sendable {
    /// Your identifier for the item, JSON key `SKU`.
    public var sku: String?
    public var description: String?
    public var displayName: String?
    public var offer: AdvancedCommerceOffer?
    public var price: Int64?
    public var refunds: [AdvancedCommerceRefund]?
    /// UNIX time in milliseconds.
    @Milliseconds public var revocationDate: Int64?

    public init(
        sku: String? = nil,
        description: String? = nil,
        displayName: String? = nil,
        offer: AdvancedCommerceOffer? = nil,
        price: Int64? = nil,
        refunds: [AdvancedCommerceRefund]? = nil,
        revocationDate: Int64? = nil
    ) {
        self.sku = sku
        self.description = description
        self.displayName = displayName
        self.offer = offer
        self.price = price
        self.refunds = refunds
        self.revocationDate = revocationDate
    }

    private enum CodingKeys: String, CodingKey {
        case sku = "SKU"
        case description
        case displayName
        case offer
        case price
        case refunds
        case revocationDate
    }
}
