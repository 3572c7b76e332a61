/// The app metadata and signed transaction data of a notification.
///
/// `appAppleId` is absent in some sandbox notifications.
///
/// https://developer.apple.com/documentation/appstoreservernotifications/data
public struct NotificationData: Codable, Hashable, Sendable {
    public var appAppleId: Int64?
    public var bundleId: String?
    public var bundleVersion: String?
    public var environment: AppStoreEnvironment?
    /// A JWS whose payload is a `JWSTransactionDecodedPayload`.
    public var signedTransactionInfo: String?
    /// A JWS whose payload is a `JWSRenewalInfoDecodedPayload`.
    public var signedRenewalInfo: String?
    public var status: SubscriptionStatus?
    /// Present only for `CONSUMPTION_REQUEST`.
    public var consumptionRequestReason: ConsumptionRequestReason?

    public init(
        appAppleId: Int64? = nil,
        bundleId: String? = nil,
        bundleVersion: String? = nil,
        environment: AppStoreEnvironment? = nil,
        signedTransactionInfo: String? = nil,
        signedRenewalInfo: String? = nil,
        status: SubscriptionStatus? = nil,
        consumptionRequestReason: ConsumptionRequestReason? = nil
    ) {
        self.appAppleId = appAppleId
        self.bundleId = bundleId
        self.bundleVersion = bundleVersion
        self.environment = environment
        self.signedTransactionInfo = signedTransactionInfo
        self.signedRenewalInfo = signedRenewalInfo
        self.status = status
        self.consumptionRequestReason = consumptionRequestReason
    }
}
