/// Whether the customer has responded to a subscription price increase.
///
/// https://developer.apple.com/documentation/appstoreserverapi/priceincreasestatus
public enum PriceIncreaseStatus: OpenEnum {
    case customerHasNotResponded
    case customerConsentedOrWasNotifiedWithoutNeedingConsent
    case unknown(Int32)

    public static let knownValues: [Self] = [
        .customerHasNotResponded, .customerConsentedOrWasNotifiedWithoutNeedingConsent,
    ]

    public var rawValue: Int32 {
        switch self {
        case .customerHasNotResponded: 0
        case .customerConsentedOrWasNotifiedWithoutNeedingConsent: 1
        case .unknown(let rawValue): rawValue
        }
    }
}
