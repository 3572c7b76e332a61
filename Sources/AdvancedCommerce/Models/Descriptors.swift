/// The name and description of a new subscription.
///
/// `displayName` is the subscription's customer-visible name; item names must differ from it.
/// https://developer.apple.com/documentation/advancedcommerceapi/descriptors
public struct Descriptors: Codable, Hashable, Sendable {
    /// Required, at most 30 characters; shown on the payment sheet, in emails and in Subscription Settings.
    public var displayName: String?
    /// Required, at most 45 characters; never shown to customers.
    public var description: String?

    public init(displayName: String? = nil, description: String? = nil) {
        self.displayName = displayName
        self.description = description
    }
}
