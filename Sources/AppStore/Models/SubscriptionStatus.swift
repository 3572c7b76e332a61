/// The status of an auto-renewable subscription as of a notification's `signedDate`.
///
/// https://developer.apple.com/documentation/appstoreservernotifications/status
public enum SubscriptionStatus: OpenEnum {
    case active
    case expired
    case billingRetry
    case billingGracePeriod
    case revoked
    case unknown(Int32)

    public static let knownValues: [Self] = [
        .active, .expired, .billingRetry, .billingGracePeriod, .revoked,
    ]

    public var rawValue: Int32 {
        switch self {
        case .active: 1
        case .expired: 2
        case .billingRetry: 3
        case .billingGracePeriod: 4
        case .revoked: 5
        case .unknown(let rawValue): rawValue
        }
    }
}
