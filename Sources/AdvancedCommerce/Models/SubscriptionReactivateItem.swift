/// An item to renew when a subscription whose auto-renew is off is reactivated.
///
/// https://developer.apple.com/documentation/advancedcommerceapi/subscriptionreactivateitem
public struct SubscriptionReactivateItem: Codable, Hashable, Sendable {
    /// Required, at most 128 characters.
    public var sku: String?

    enum CodingKeys: String, CodingKey {
        case sku = "SKU"
    }

    public init(sku: String? = nil) {
        self.sku = sku
    }
}
