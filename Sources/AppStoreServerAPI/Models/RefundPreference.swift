import AppStore

/// The refund outcome the developer prefers (Send Consumption Information, version 2).
///
/// https://developer.apple.com/documentation/appstoreserverapi/refundpreference
public enum RefundPreference: OpenEnum {
    case decline
    case grantFull
    case grantProrated
    case unknown(String)

    public static let knownValues: [Self] = [.decline, .grantFull, .grantProrated]

    public var rawValue: String {
        switch self {
        case .decline: "DECLINE"
        case .grantFull: "GRANT_FULL"
        case .grantProrated: "GRANT_PRORATED"
        case .unknown(let rawValue): rawValue
        }
    }
}
