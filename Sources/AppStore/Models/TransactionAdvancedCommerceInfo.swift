/// The Advanced Commerce details of a transaction.
///
/// Amounts are milliunits of the transaction's `currency`.
///
/// https://developer.apple.com/documentation/appstoreserverapi/advancedcommercetransactioninfo
public struct TransactionAdvancedCommerceInfo: Codable, Hashable, Sendable {
    public var descriptors: AdvancedCommerceDescriptors?
    public var estimatedTax: Int64?
    public var items: [TransactionAdvancedCommerceItem]?
    public var period: AdvancedCommercePeriod?
    /// The `requestInfo.requestReferenceId` of the request that made it.
    public var requestReferenceId: String?
    public var taxCode: String?
    public var taxExclusivePrice: Int64?
    /// A decimal number as a string, such as `"0.2"`.
    public var taxRate: String?

    public init(
        descriptors: AdvancedCommerceDescriptors? = nil,
        estimatedTax: Int64? = nil,
        items: [TransactionAdvancedCommerceItem]? = nil,
        period: AdvancedCommercePeriod? = nil,
        requestReferenceId: String? = nil,
        taxCode: String? = nil,
        taxExclusivePrice: Int64? = nil,
        taxRate: String? = nil
    ) {
        self.descriptors = descriptors
        self.estimatedTax = estimatedTax
        self.items = items
        self.period = period
        self.requestReferenceId = requestReferenceId
        self.taxCode = taxCode
        self.taxExclusivePrice = taxExclusivePrice
        self.taxRate = taxRate
    }
}
