/// The Advanced Commerce details of a subscription's next renewal.
///
/// https://developer.apple.com/documentation/appstoreserverapi/advancedcommercerenewalinfo
public struct RenewalAdvancedCommerceInfo: Codable, Hashable, Sendable {
    /// Send back as `requestInfo.consistencyToken` in the next request.
    public var consistencyToken: String?
    public var descriptors: AdvancedCommerceDescriptors?
    public var items: [RenewalAdvancedCommerceItem]?
    public var period: AdvancedCommercePeriod?
    public var requestReferenceId: String?
    public var taxCode: String?

    public init(
        consistencyToken: String? = nil,
        descriptors: AdvancedCommerceDescriptors? = nil,
        items: [RenewalAdvancedCommerceItem]? = nil,
        period: AdvancedCommercePeriod? = nil,
        requestReferenceId: String? = nil,
        taxCode: String? = nil
    ) {
        self.consistencyToken = consistencyToken
        self.descriptors = descriptors
        self.items = items
        self.period = period
        self.requestReferenceId = requestReferenceId
        self.taxCode = taxCode
    }
}
