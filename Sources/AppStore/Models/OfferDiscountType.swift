/// The payment mode of an introductory offer, promotional offer, offer code or win-back offer.
///
/// https://developer.apple.com/documentation/appstoreserverapi/offerdiscounttype
public enum OfferDiscountType: OpenEnum {
    case freeTrial
    case payAsYouGo
    case payUpFront
    case oneTime
    case unknown(String)

    public static let knownValues: [Self] = [
        .freeTrial, .payAsYouGo, .payUpFront, .oneTime,
    ]

    public var rawValue: String {
        switch self {
        case .freeTrial: "FREE_TRIAL"
        case .payAsYouGo: "PAY_AS_YOU_GO"
        case .payUpFront: "PAY_UP_FRONT"
        case .oneTime: "ONE_TIME"
        case .unknown(let rawValue): rawValue
        }
    }
}
