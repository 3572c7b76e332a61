/// The kind of subscription offer that applies to a transaction or renewal.
///
/// https://developer.apple.com/documentation/appstoreserverapi/offertype
public enum OfferType: OpenEnum {
    case introductory
    case promotional
    case offerCode
    case winBack
    case unknown(Int32)

    public static let knownValues: [Self] = [
        .introductory, .promotional, .offerCode, .winBack,
    ]

    public var rawValue: Int32 {
        switch self {
        case .introductory: 1
        case .promotional: 2
        case .offerCode: 3
        case .winBack: 4
        case .unknown(let rawValue): rawValue
        }
    }
}
