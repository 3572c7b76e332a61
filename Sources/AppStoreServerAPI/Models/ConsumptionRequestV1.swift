import AppStore

/// Consumption information in version 1's form, which Apple still takes, and only takes, for a
/// purchase made with the Advanced Commerce API (version 2 refuses one with
/// AdvancedCommerceTransactionNotSupportedError). Every member but `refundPreference` is
/// required; the numeric ones say 0 for "undeclared", and `appAccountToken` is empty for none.
///
/// https://developer.apple.com/documentation/appstoreserverapi/consumptionrequestv1
public struct ConsumptionRequestV1: Codable, Hashable, Sendable {
    /// How much of the purchase was used.
    public enum ConsumptionStatus: Int32, Codable, Sendable {
        case undeclared = 0, notConsumed, partiallyConsumed, fullyConsumed
    }

    /// Whether the purchase was delivered and works; the reason when not.
    public enum DeliveryStatus: Int32, Codable, Sendable {
        case deliveredAndWorking = 0, qualityIssue, wrongItem, serverOutage, currencyChange, otherReason
    }

    /// Where the customer used the purchase.
    public enum Platform: Int32, Codable, Sendable {
        case undeclared = 0, apple, nonApple
    }

    /// The outcome the developer prefers.
    public enum RefundPreference: Int32, Codable, Sendable {
        case undeclared = 0, preferGrant, preferDecline, noPreference
    }

    public var customerConsented: Bool
    public var consumptionStatus: ConsumptionStatus
    public var platform: Platform
    public var sampleContentProvided: Bool
    public var deliveryStatus: DeliveryStatus
    /// The purchase's `appAccountToken`, "" when it has none.
    public var appAccountToken: String
    /// Apple's ranges of account age, play time, lifetime dollars and account status (0 undeclared).
    public var accountTenure: Int32
    public var playTime: Int32
    public var lifetimeDollarsRefunded: Int32
    public var lifetimeDollarsPurchased: Int32
    public var userStatus: Int32
    public var refundPreference: RefundPreference?

    public init(
        customerConsented: Bool, consumptionStatus: ConsumptionStatus, platform: Platform = .undeclared,
        sampleContentProvided: Bool, deliveryStatus: DeliveryStatus, appAccountToken: String = "",
        accountTenure: Int32 = 0, playTime: Int32 = 0, lifetimeDollarsRefunded: Int32 = 0,
        lifetimeDollarsPurchased: Int32 = 0, userStatus: Int32 = 0, refundPreference: RefundPreference? = nil
    ) {
        self.customerConsented = customerConsented
        self.consumptionStatus = consumptionStatus
        self.platform = platform
        self.sampleContentProvided = sampleContentProvided
        self.deliveryStatus = deliveryStatus
        self.appAccountToken = appAccountToken
        self.accountTenure = accountTenure
        self.playTime = playTime
        self.lifetimeDollarsRefunded = lifetimeDollarsRefunded
        self.lifetimeDollarsPurchased = lifetimeDollarsPurchased
        self.userStatus = userStatus
        self.refundPreference = refundPreference
    }

    /// Version 1's form of a version 2 request about a purchase carrying `appAccountToken`: the
    /// share used becomes a consumption status (none given: undeclared), an undelivered reason
    /// its number, and a prorated refund, which version 1 cannot ask for, no preference.
    public init(_ request: ConsumptionRequest, appAccountToken: String?) {
        let status: ConsumptionStatus =
            switch request.consumptionPercentage {
            case nil: .undeclared
            case 0?: .notConsumed
            case 100_000?: .fullyConsumed
            default: .partiallyConsumed
            }
        let delivery: DeliveryStatus =
            switch request.deliveryStatus {
            case .delivered: .deliveredAndWorking
            case .undeliveredQualityIssue: .qualityIssue
            case .undeliveredWrongItem: .wrongItem
            case .undeliveredServerOutage: .serverOutage
            default: .otherReason
            }
        let preference: RefundPreference? =
            switch request.refundPreference {
            case nil: nil
            case .grantFull?: .preferGrant
            case .decline?: .preferDecline
            default: .noPreference
            }
        self.init(
            customerConsented: request.customerConsented, consumptionStatus: status,
            sampleContentProvided: request.sampleContentProvided, deliveryStatus: delivery,
            appAccountToken: appAccountToken ?? "", refundPreference: preference)
    }
}
