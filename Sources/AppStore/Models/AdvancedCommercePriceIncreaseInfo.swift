/// A price increase pending on an Advanced Commerce renewal item.
///
/// https://developer.apple.com/documentation/appstoreserverapi/advancedcommercepriceincreaseinfo
public struct AdvancedCommercePriceIncreaseInfo: Codable, Hashable, Sendable {
    public var dependentSKUs: [String]?
    /// The new price, in milliunits.
    public var price: Int64?
    public var status: AdvancedCommercePriceIncreaseInfoStatus?

    public init(
        dependentSKUs: [String]? = nil,
        price: Int64? = nil,
        status: AdvancedCommercePriceIncreaseInfoStatus? = nil
    ) {
        self.dependentSKUs = dependentSKUs
        self.price = price
        self.status = status
    }
}
