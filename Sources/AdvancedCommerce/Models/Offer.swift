/// A discounted price for a number of periods of a subscription item.
///
/// https://developer.apple.com/documentation/advancedcommerceapi/offer
public struct Offer: Codable, Hashable, Sendable {
    /// Required.
    public var period: OfferPeriod?
    /// Required, 1 to 12; a free trial (price 0) must use 1.
    public var periodCount: Int32?
    /// Required, in milliunits; at most the item's regular price.
    public var price: Int64?
    /// Required.
    public var reason: OfferReason?

    public init(period: OfferPeriod? = nil, periodCount: Int32? = nil, price: Int64? = nil, reason: OfferReason? = nil) {
        self.period = period
        self.periodCount = periodCount
        self.price = price
        self.reason = reason
    }
}
