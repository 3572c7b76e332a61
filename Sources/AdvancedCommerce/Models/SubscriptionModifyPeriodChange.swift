/// A new billing period for a subscription being modified.
///
/// https://developer.apple.com/documentation/advancedcommerceapi/subscriptionmodifyperiodchange
public struct SubscriptionModifyPeriodChange: Codable, Hashable, Sendable {
    /// Required.
    public var effective: Effective?
    /// Required.
    public var period: Period?

    public init(effective: Effective? = nil, period: Period? = nil) {
        self.effective = effective
        self.period = period
    }
}
