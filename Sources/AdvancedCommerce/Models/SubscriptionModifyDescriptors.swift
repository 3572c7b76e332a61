/// New name or description for a subscription being modified.
///
/// https://developer.apple.com/documentation/advancedcommerceapi/subscriptionmodifydescriptors
public struct SubscriptionModifyDescriptors: Codable, Hashable, Sendable {
    /// Required.
    public var effective: Effective?
    /// At most 30 characters.
    public var displayName: String?
    /// At most 45 characters.
    public var description: String?

    public init(effective: Effective? = nil, displayName: String? = nil, description: String? = nil) {
        self.effective = effective
        self.displayName = displayName
        self.description = description
    }
}
