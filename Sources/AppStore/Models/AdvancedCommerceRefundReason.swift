/// The reason for an Advanced Commerce refund.
///
/// `simulateRefundDecline` is accepted only in the sandbox and TestFlight.
///
/// https://developer.apple.com/documentation/appstoreserverapi/advancedcommercerefundreason
public enum AdvancedCommerceRefundReason: OpenEnum {
    case unintendedPurchase
    case fulfillmentIssue
    case unsatisfiedWithPurchase
    case legal
    case other
    case modifyItemsRefund
    case simulateRefundDecline
    case unknown(String)

    public static let knownValues: [Self] = [
        .unintendedPurchase, .fulfillmentIssue, .unsatisfiedWithPurchase, .legal, .other,
        .modifyItemsRefund, .simulateRefundDecline,
    ]

    public var rawValue: String {
        switch self {
        case .unintendedPurchase: "UNINTENDED_PURCHASE"
        case .fulfillmentIssue: "FULFILLMENT_ISSUE"
        case .unsatisfiedWithPurchase: "UNSATISFIED_WITH_PURCHASE"
        case .legal: "LEGAL"
        case .other: "OTHER"
        case .modifyItemsRefund: "MODIFY_ITEMS_REFUND"
        case .simulateRefundDecline: "SIMULATE_REFUND_DECLINE"
        case .unknown(let rawValue): rawValue
        }
    }
}
