/// Which customers a non-production purchase (Sandbox, Xcode, local testing) gives entitlements
/// to: RevenueCat's "sandbox testing access". The purchase, its state and its events are
/// recorded whatever the setting; only access follows it.
public enum SandboxAccess: Codable, Hashable, Sendable {
    /// Every customer (the default).
    case everyone
    /// Only these customers, by the id each is known by (`app_user_id`), not by an alias: the
    /// public key, which every copy of the app holds, can give a customer any alias.
    case only(Set<String>)
    /// No customer.
    case nobody

    /// Whether a non-production purchase gives `customer` (nil: one not known yet, by
    /// `appUserId`) its entitlements.
    public func grants(_ customer: CustomerState?, appUserId: String) -> Bool {
        switch self {
        case .everyone: true
        case .nobody: false
        case .only(let ids): ids.contains(customer?.appUserId ?? appUserId)
        }
    }
}
