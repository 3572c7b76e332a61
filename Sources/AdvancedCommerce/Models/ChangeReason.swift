import AppStore

/// Why an item of a subscription is replaced by another.
///
/// https://developer.apple.com/documentation/advancedcommerceapi/reason
public enum ChangeReason: OpenEnum {
    case upgrade
    case downgrade
    case applyOffer
    case unknown(String)

    public static let knownValues: [Self] = [.upgrade, .downgrade, .applyOffer]

    public var rawValue: String {
        switch self {
        case .upgrade: "UPGRADE"
        case .downgrade: "DOWNGRADE"
        case .applyOffer: "APPLY_OFFER"
        case .unknown(let rawValue): rawValue
        }
    }
}
