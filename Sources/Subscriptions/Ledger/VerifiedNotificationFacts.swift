import AppStore

/// What a verified App Store Server Notification V2 says, as the reducer consumes it.
///
/// The shell builds it after verification from `ResponseBodyV2DecodedPayload` and the verified
/// `signedTransactionInfo` / `signedRenewalInfo`. Type and subtype are `OpenEnum`s, so a value
/// Apple adds later arrives as `.unknown(raw)`, is stored in the subscription's history, and
/// changes nothing.
/// https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2decodedpayload
public struct VerifiedNotificationFacts: Codable, Hashable, Sendable {
    /// Apple's `notificationUUID` (the deduplication key; retries reuse it).
    public var notificationUUID: String
    /// Apple's `notificationType`; unknown values kept raw.
    public var notificationType: NotificationTypeV2
    /// Apple's `subtype`; unknown values kept raw.
    public var subtype: Subtype?
    /// When Apple signed the notification, UNIX milliseconds: the order facts are applied in.
    public var signedDateMs: Int64
    /// The environment of `data`, `summary`, `externalPurchaseToken` or `appData`.
    public var environment: AppStoreEnvironment?
    /// The decoded `data.signedTransactionInfo`.
    public var transaction: JWSTransactionDecodedPayload?
    /// The decoded `data.signedRenewalInfo` (auto-renewable subscriptions only).
    public var renewalInfo: JWSRenewalInfoDecodedPayload?

    /// Facts from their parts (tests, replay).
    public init(
        notificationUUID: String,
        notificationType: NotificationTypeV2,
        subtype: Subtype? = nil,
        signedDateMs: Int64,
        environment: AppStoreEnvironment? = nil,
        transaction: JWSTransactionDecodedPayload? = nil,
        renewalInfo: JWSRenewalInfoDecodedPayload? = nil
    ) {
        self.notificationUUID = notificationUUID
        self.notificationType = notificationType
        self.subtype = subtype
        self.signedDateMs = signedDateMs
        self.environment = environment
        self.transaction = transaction
        self.renewalInfo = renewalInfo
    }

    /// The facts of a verified notification.
    ///
    /// - Parameters:
    ///   - notificationUUID: The id the shell stored the notification under; pass Apple's
    ///     `notificationUUID`, or the shell's stable substitute when Apple sent none.
    ///   - payload: The verified outer payload.
    ///   - transaction: The verified `signedTransactionInfo`, if any.
    ///   - renewalInfo: The verified `signedRenewalInfo`, if any.
    ///
    /// Early (2022) payloads have no `signedDate`; the transaction's or renewal info's
    /// `signedDate` stands in, else 0 (the oldest possible, so such a fact never overrides).
    public init(
        notificationUUID: String,
        payload: ResponseBodyV2DecodedPayload,
        transaction: JWSTransactionDecodedPayload?,
        renewalInfo: JWSRenewalInfoDecodedPayload?
    ) {
        self.init(
            notificationUUID: notificationUUID,
            notificationType: payload.notificationType ?? .unknown(""),
            subtype: payload.subtype,
            signedDateMs: payload.signedDate ?? transaction?.signedDate ?? renewalInfo?.signedDate ?? 0,
            environment: payload.appIdentity.environment,
            transaction: transaction,
            renewalInfo: renewalInfo
        )
    }
}
