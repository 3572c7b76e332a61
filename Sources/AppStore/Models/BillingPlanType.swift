/// How a subscription is billed: up front, or monthly with a 12-month commitment.
///
/// Used by `billingPlanType`, `renewalBillingPlanType` and `commitmentRenewalBillingPlanType`.
///
/// https://developer.apple.com/documentation/appstoreserverapi/billingplantype
public enum BillingPlanType: OpenEnum {
    case billedUpfront
    case monthly
    case unknown(String)

    public static let knownValues: [Self] = [
        .billedUpfront, .monthly,
    ]

    public var rawValue: String {
        switch self {
        case .billedUpfront: "BILLED_UPFRONT"
        case .monthly: "MONTHLY"
        case .unknown(let rawValue): rawValue
        }
    }
}
