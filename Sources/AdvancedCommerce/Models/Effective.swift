import AppStore

/// When a subscription change takes effect.
///
/// https://developer.apple.com/documentation/advancedcommerceapi/effective
public enum Effective: OpenEnum {
    case immediately
    case nextBillCycle
    case unknown(String)

    public static let knownValues: [Self] = [.immediately, .nextBillCycle]

    public var rawValue: String {
        switch self {
        case .immediately: "IMMEDIATELY"
        case .nextBillCycle: "NEXT_BILL_CYCLE"
        case .unknown(let rawValue): rawValue
        }
    }
}
