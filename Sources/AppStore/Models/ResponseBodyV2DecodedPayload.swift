/// The decoded payload of an App Store Server Notification V2.
///
/// It carries exactly one of `data`, `summary`, `externalPurchaseToken` or `appData`.
///
/// https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2decodedpayload
public struct ResponseBodyV2DecodedPayload: Codable, Hashable, Sendable {
    public var notificationType: NotificationTypeV2?
    public var subtype: Subtype?
    /// The deduplication key: retries of one notification reuse it.
    public var notificationUUID: String?
    public var data: NotificationData?
    /// Present only for `RENEWAL_EXTENSION` / `SUMMARY`.
    public var summary: NotificationSummary?
    /// Present only for `EXTERNAL_PURCHASE_TOKEN`.
    public var externalPurchaseToken: ExternalPurchaseToken?
    /// Present only for `RESCIND_CONSENT`.
    public var appData: AppData?
    /// The notification version, `"2.0"`.
    public var version: String?
    /// When Apple signed the notification, UNIX time in milliseconds; absent in early payloads.
    @Milliseconds public var signedDate: Int64?

    public init(
        notificationType: NotificationTypeV2? = nil,
        subtype: Subtype? = nil,
        notificationUUID: String? = nil,
        data: NotificationData? = nil,
        summary: NotificationSummary? = nil,
        externalPurchaseToken: ExternalPurchaseToken? = nil,
        appData: AppData? = nil,
        version: String? = nil,
        signedDate: Int64? = nil
    ) {
        self.notificationType = notificationType
        self.subtype = subtype
        self.notificationUUID = notificationUUID
        self.data = data
        self.summary = summary
        self.externalPurchaseToken = externalPurchaseToken
        self.appData = appData
        self.version = version
        self.signedDate = signedDate
    }
}

// MARK: - App identity

extension ResponseBodyV2DecodedPayload {
    /// The app and environment the notification is for, read the way Apple's libraries read it.
    ///
    /// The first of `data`, `summary`, `externalPurchaseToken` and `appData` that is present
    /// supplies all three values. An external purchase token has no environment field: its
    /// environment is Sandbox when `externalPurchaseId` starts with `SANDBOX`, else Production.
    public var appIdentity: NotificationAppIdentity {
        if let data {
            return NotificationAppIdentity(
                bundleId: data.bundleId,
                appAppleId: data.appAppleId,
                environment: data.environment
            )
        }
        if let summary {
            return NotificationAppIdentity(
                bundleId: summary.bundleId,
                appAppleId: summary.appAppleId,
                environment: summary.environment
            )
        }
        if let token = externalPurchaseToken {
            let isSandbox = token.externalPurchaseId?.hasPrefix("SANDBOX") ?? false
            return NotificationAppIdentity(
                bundleId: token.bundleId,
                appAppleId: token.appAppleId,
                environment: isSandbox ? .sandbox : .production
            )
        }
        if let appData {
            return NotificationAppIdentity(
                bundleId: appData.bundleId,
                appAppleId: appData.appAppleId,
                environment: appData.environment
            )
        }
        return NotificationAppIdentity()
    }
}
