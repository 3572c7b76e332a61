/// A refund of one Advanced Commerce transaction item.
///
/// https://developer.apple.com/documentation/appstoreserverapi/advancedcommercerefund
public struct AdvancedCommerceRefund: Codable, Hashable, Sendable {
    /// Milliunits of the transaction's `currency`.
    public var refundAmount: Int64?
    /// UNIX time in milliseconds.
    @Milliseconds public var refundDate: Int64?
    public var refundReason: AdvancedCommerceRefundReason?
    public var refundType: AdvancedCommerceRefundType?

    public init(
        refundAmount: Int64? = nil,
        refundDate: Int64? = nil,
        refundReason: AdvancedCommerceRefundReason? = nil,
        refundType: AdvancedCommerceRefundType? = nil
    ) {
        self.refundAmount = refundAmount
        self.refundDate = refundDate
        self.refundReason = refundReason
        self.refundType = refundType
    }
}
