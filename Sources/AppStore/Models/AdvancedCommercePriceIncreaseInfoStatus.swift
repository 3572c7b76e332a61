/// The state of a price increase on an Advanced Commerce renewal item.
///
/// https://developer.apple.com/documentation/appstoreserverapi/advancedcommercepriceincreaseinfostatus
public enum AdvancedCommercePriceIncreaseInfoStatus: OpenEnum {
    case scheduled
    case pending
    case accepted
    case unknown(String)

    public static let knownValues: [Self] = [
        .scheduled, .pending, .accepted,
    ]

    public var rawValue: String {
        switch self {
        case .scheduled: "SCHEDULED"
        case .pending: "PENDING"
        case .accepted: "ACCEPTED"
        case .unknown(let rawValue): rawValue
        }
    }
}
