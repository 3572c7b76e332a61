import AppStore

/// Whether the app delivered a purchase that works (Send Consumption Information, version 2).
///
/// https://developer.apple.com/documentation/appstoreserverapi/deliverystatus
public enum DeliveryStatus: OpenEnum {
    case delivered
    case undeliveredQualityIssue
    case undeliveredWrongItem
    case undeliveredServerOutage
    case undeliveredOther
    case unknown(String)

    public static let knownValues: [Self] = [
        .delivered, .undeliveredQualityIssue, .undeliveredWrongItem, .undeliveredServerOutage, .undeliveredOther,
    ]

    public var rawValue: String {
        switch self {
        case .delivered: "DELIVERED"
        case .undeliveredQualityIssue: "UNDELIVERED_QUALITY_ISSUE"
        case .undeliveredWrongItem: "UNDELIVERED_WRONG_ITEM"
        case .undeliveredServerOutage: "UNDELIVERED_SERVER_OUTAGE"
        case .undeliveredOther: "UNDELIVERED_OTHER"
        case .unknown(let rawValue): rawValue
        }
    }
}
