/// The subtype that details a notification type.
///
/// https://developer.apple.com/documentation/appstoreservernotifications/subtype
public enum Subtype: OpenEnum {
    case initialBuy
    case resubscribe
    case downgrade
    case upgrade
    case autoRenewEnabled
    case autoRenewDisabled
    case voluntary
    case billingRetry
    case priceIncrease
    case gracePeriod
    case pending
    case accepted
    case billingRecovery
    case productNotForSale
    case summary
    case failure
    case unreported
    /// A custom-link external purchase token was created.
    case created
    /// Sent monthly while a custom-link token is active.
    case activeTokenReminder
    case unknown(String)

    public static let knownValues: [Self] = [
        .initialBuy, .resubscribe, .downgrade, .upgrade, .autoRenewEnabled, .autoRenewDisabled,
        .voluntary, .billingRetry, .priceIncrease, .gracePeriod, .pending, .accepted,
        .billingRecovery, .productNotForSale, .summary, .failure, .unreported, .created,
        .activeTokenReminder,
    ]

    public var rawValue: String {
        switch self {
        case .initialBuy: "INITIAL_BUY"
        case .resubscribe: "RESUBSCRIBE"
        case .downgrade: "DOWNGRADE"
        case .upgrade: "UPGRADE"
        case .autoRenewEnabled: "AUTO_RENEW_ENABLED"
        case .autoRenewDisabled: "AUTO_RENEW_DISABLED"
        case .voluntary: "VOLUNTARY"
        case .billingRetry: "BILLING_RETRY"
        case .priceIncrease: "PRICE_INCREASE"
        case .gracePeriod: "GRACE_PERIOD"
        case .pending: "PENDING"
        case .accepted: "ACCEPTED"
        case .billingRecovery: "BILLING_RECOVERY"
        case .productNotForSale: "PRODUCT_NOT_FOR_SALE"
        case .summary: "SUMMARY"
        case .failure: "FAILURE"
        case .unreported: "UNREPORTED"
        case .created: "CREATED"
        case .activeTokenReminder: "ACTIVE_TOKEN_REMINDER"
        case .unknown(let rawValue): rawValue
        }
    }
}
