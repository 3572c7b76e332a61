/// The type of an App Store Server Notification V2.
///
/// https://developer.apple.com/documentation/appstoreservernotifications/notificationtype
public enum NotificationTypeV2: OpenEnum {
    case subscribed
    case didChangeRenewalPref
    case didChangeRenewalStatus
    case offerRedeemed
    case didRenew
    case expired
    case didFailToRenew
    case gracePeriodExpired
    case priceIncrease
    case refund
    case refundDeclined
    case consumptionRequest
    case renewalExtended
    case revoke
    case test
    case renewalExtension
    case refundReversed
    case externalPurchaseToken
    case oneTimeCharge
    case rescindConsent
    case metadataUpdate
    case migration
    case priceChange
    case unknown(String)

    public static let knownValues: [Self] = [
        .subscribed, .didChangeRenewalPref, .didChangeRenewalStatus, .offerRedeemed, .didRenew,
        .expired, .didFailToRenew, .gracePeriodExpired, .priceIncrease, .refund, .refundDeclined,
        .consumptionRequest, .renewalExtended, .revoke, .test, .renewalExtension, .refundReversed,
        .externalPurchaseToken, .oneTimeCharge, .rescindConsent, .metadataUpdate, .migration,
        .priceChange,
    ]

    public var rawValue: String {
        switch self {
        case .subscribed: "SUBSCRIBED"
        case .didChangeRenewalPref: "DID_CHANGE_RENEWAL_PREF"
        case .didChangeRenewalStatus: "DID_CHANGE_RENEWAL_STATUS"
        case .offerRedeemed: "OFFER_REDEEMED"
        case .didRenew: "DID_RENEW"
        case .expired: "EXPIRED"
        case .didFailToRenew: "DID_FAIL_TO_RENEW"
        case .gracePeriodExpired: "GRACE_PERIOD_EXPIRED"
        case .priceIncrease: "PRICE_INCREASE"
        case .refund: "REFUND"
        case .refundDeclined: "REFUND_DECLINED"
        case .consumptionRequest: "CONSUMPTION_REQUEST"
        case .renewalExtended: "RENEWAL_EXTENDED"
        case .revoke: "REVOKE"
        case .test: "TEST"
        case .renewalExtension: "RENEWAL_EXTENSION"
        case .refundReversed: "REFUND_REVERSED"
        case .externalPurchaseToken: "EXTERNAL_PURCHASE_TOKEN"
        case .oneTimeCharge: "ONE_TIME_CHARGE"
        case .rescindConsent: "RESCIND_CONSENT"
        case .metadataUpdate: "METADATA_UPDATE"
        case .migration: "MIGRATION"
        case .priceChange: "PRICE_CHANGE"
        case .unknown(let rawValue): rawValue
        }
    }
}
