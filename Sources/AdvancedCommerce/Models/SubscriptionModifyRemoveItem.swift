/// An item removed from an existing subscription at the next renewal (it has no `effective`).
///
/// https://developer.apple.com/documentation/advancedcommerceapi/subscriptionmodifyremoveitem
public struct SubscriptionModifyRemoveItem: Codable, Hashable, Sendable {
    /// Required, at most 128 characters.
    public var sku: String?

    enum CodingKeys: String, CodingKey {
        case sku = "SKU"
    }

    public init(sku: String? = nil) {
        self.sku = sku
    }
}
