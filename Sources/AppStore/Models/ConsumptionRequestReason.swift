/// The customer's reason for a refund request that led to a `CONSUMPTION_REQUEST`.
///
/// https://developer.apple.com/documentation/appstoreservernotifications/consumptionrequestreason
public enum ConsumptionRequestReason: OpenEnum {
    case unintendedPurchase
    case fulfillmentIssue
    case unsatisfiedWithPurchase
    case legal
    case other
    case unknown(String)

    public static let knownValues: [Self] = [
        .unintendedPurchase, .fulfillmentIssue, .unsatisfiedWithPurchase, .legal, .other,
    ]

    public var rawValue: String {
        switch self {
        case .unintendedPurchase: "UNINTENDED_PURCHASE"
        case .fulfillmentIssue: "FULFILLMENT_ISSUE"
        case .unsatisfiedWithPurchase: "UNSATISFIED_WITH_PURCHASE"
        case .legal: "LEGAL"
        case .other: "OTHER"
        case .unknown(let rawValue): rawValue
        }
    }
}
