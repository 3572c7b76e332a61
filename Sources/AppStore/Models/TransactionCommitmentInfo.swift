/// The commitment of a transaction billed monthly with a 12-month commitment.
///
/// https://developer.apple.com/documentation/appstoreserverapi/transactioncommitmentinfo
public struct TransactionCommitmentInfo: Codable, Hashable, Sendable {
    /// Which billing period of the commitment this transaction pays for.
    public var billingPeriodNumber: Int32?
    /// UNIX time in milliseconds.
    @Milliseconds public var commitmentExpiresDate: Int64?
    /// The total price of the commitment, in milliunits.
    public var commitmentPrice: Int64?
    public var totalBillingPeriods: Int32?

    public init(
        billingPeriodNumber: Int32? = nil,
        commitmentExpiresDate: Int64? = nil,
        commitmentPrice: Int64? = nil,
        totalBillingPeriods: Int32? = nil
    ) {
        self.billingPeriodNumber = billingPeriodNumber
        self.commitmentExpiresDate = commitmentExpiresDate
        self.commitmentPrice = commitmentPrice
        self.totalBillingPeriods = totalBillingPeriods
    }
}
