/// The app a notification is for: the values checked against the configured app.
///
/// Computed by `ResponseBodyV2DecodedPayload.appIdentity`; every field is optional because
/// Apple omits some of them (for example `appAppleId` in some sandbox notifications).
///
/// https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2decodedpayload
public struct NotificationAppIdentity: Hashable, Sendable {
    public var bundleId: String?
    public var appAppleId: Int64?
    public var environment: AppStoreEnvironment?

    public init(
        bundleId: String? = nil,
        appAppleId: Int64? = nil,
        environment: AppStoreEnvironment? = nil
    ) {
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.environment = environment
    }
}
