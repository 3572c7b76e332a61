/// The duration of one period of an Advanced Commerce offer.
///
/// https://developer.apple.com/documentation/advancedcommerceapi/offer
public enum AdvancedCommerceOfferPeriod: OpenEnum {
    case threeDays
    case oneWeek
    case twoWeeks
    case oneMonth
    case twoMonths
    case threeMonths
    case sixMonths
    case nineMonths
    case oneYear
    case unknown(String)

    public static let knownValues: [Self] = [
        .threeDays, .oneWeek, .twoWeeks, .oneMonth, .twoMonths, .threeMonths, .sixMonths,
        .nineMonths, .oneYear,
    ]

    public var rawValue: String {
        switch self {
        case .threeDays: "P3D"
        case .oneWeek: "P1W"
        case .twoWeeks: "P2W"
        case .oneMonth: "P1M"
        case .twoMonths: "P2M"
        case .threeMonths: "P3M"
        case .sixMonths: "P6M"
        case .nineMonths: "P9M"
        case .oneYear: "P1Y"
        case .unknown(let rawValue): rawValue
        }
    }
}
