/// The display name and description of an Advanced Commerce subscription.
///
/// https://developer.apple.com/documentation/appstoreserverapi/advancedcommercedescriptors
public struct AdvancedCommerceDescriptors: Codable, Hashable, Sendable {
    /// Not shown to customers.
    public var description: String?
    /// Shown to customers.
    public var displayName: String?

    public init(
        description: String? = nil,
        displayName: String? = nil
    ) {
        self.description = description
        self.displayName = displayName
    }
}
