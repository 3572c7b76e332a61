/// Why an auto-renewable subscription expired.
///
/// https://developer.apple.com/documentation/appstoreserverapi/expirationintent
public enum ExpirationIntent: OpenEnum {
    case customerCancelled
    case billingError
    case customerDidNotConsentToPriceIncrease
    case productNotAvailable
    case other
    case unknown(Int32)

    public static let knownValues: [Self] = [
        .customerCancelled, .billingError, .customerDidNotConsentToPriceIncrease,
        .productNotAvailable, .other,
    ]

    public var rawValue: Int32 {
        switch self {
        case .customerCancelled: 1
        case .billingError: 2
        case .customerDidNotConsentToPriceIncrease: 3
        case .productNotAvailable: 4
        case .other: 5
        case .unknown(let rawValue): rawValue
        }
    }
}
