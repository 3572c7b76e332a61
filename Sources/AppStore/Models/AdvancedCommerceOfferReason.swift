/// Why an Advanced Commerce offer was given.
///
/// https://developer.apple.com/documentation/advancedcommerceapi/offer
public enum AdvancedCommerceOfferReason: OpenEnum {
    case acquisition
    case winBack
    case retention
    case unknown(String)

    public static let knownValues: [Self] = [
        .acquisition, .winBack, .retention,
    ]

    public var rawValue: String {
        switch self {
        case .acquisition: "ACQUISITION"
        case .winBack: "WIN_BACK"
        case .retention: "RETENTION"
        case .unknown(let rawValue): rawValue
        }
    }
}
