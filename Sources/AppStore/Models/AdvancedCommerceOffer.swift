/// A discount offer on an Advanced Commerce item.
///
/// https://developer.apple.com/documentation/appstoreserverapi/advancedcommerceoffer
public struct AdvancedCommerceOffer: Codable, Hashable, Sendable {
    public var period: AdvancedCommerceOfferPeriod?
    /// How many periods the offer lasts.
    public var periodCount: Int32?
    /// The offer price per period, in milliunits.
    public var price: Int64?
    public var reason: AdvancedCommerceOfferReason?

    public init(
        period: AdvancedCommerceOfferPeriod? = nil,
        periodCount: Int32? = nil,
        price: Int64? = nil,
        reason: AdvancedCommerceOfferReason? = nil
    ) {
        self.period = period
        self.periodCount = periodCount
        self.price = price
        self.reason = reason
    }
}
