/// The kind of an Advanced Commerce refund: full, prorated or a custom amount.
///
/// https://developer.apple.com/documentation/appstoreserverapi/advancedcommercerefundtype
public enum AdvancedCommerceRefundType: OpenEnum {
    case full
    case prorated
    case custom
    case unknown(String)

    public static let knownValues: [Self] = [
        .full, .prorated, .custom,
    ]

    public var rawValue: String {
        switch self {
        case .full: "FULL"
        case .prorated: "PRORATED"
        case .custom: "CUSTOM"
        case .unknown(let rawValue): rawValue
        }
    }
}
