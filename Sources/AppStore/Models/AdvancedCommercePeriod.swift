/// The duration of one billing cycle of an Advanced Commerce subscription.
///
/// https://developer.apple.com/documentation/advancedcommerceapi/period
public enum AdvancedCommercePeriod: OpenEnum {
    case oneWeek
    case oneMonth
    case twoMonths
    case threeMonths
    case sixMonths
    case oneYear
    case unknown(String)

    public static let knownValues: [Self] = [
        .oneWeek, .oneMonth, .twoMonths, .threeMonths, .sixMonths, .oneYear,
    ]

    public var rawValue: String {
        switch self {
        case .oneWeek: "P1W"
        case .oneMonth: "P1M"
        case .twoMonths: "P2M"
        case .threeMonths: "P3M"
        case .sixMonths: "P6M"
        case .oneYear: "P1Y"
        case .unknown(let rawValue): rawValue
        }
    }
}
