import AppStore

/// Why a subscription's renewal date is extended.
///
/// https://developer.apple.com/documentation/appstoreserverapi/extendreasoncode
public enum ExtendReasonCode: OpenEnum {
    case undeclared
    case customerSatisfaction
    case other
    case serviceIssueOrOutage
    case unknown(Int32)

    public static let knownValues: [Self] = [.undeclared, .customerSatisfaction, .other, .serviceIssueOrOutage]

    public var rawValue: Int32 {
        switch self {
        case .undeclared: 0
        case .customerSatisfaction: 1
        case .other: 2
        case .serviceIssueOrOutage: 3
        case .unknown(let rawValue): rawValue
        }
    }
}
