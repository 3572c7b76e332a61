/// The app metadata of a notification that concerns the app itself (`RESCIND_CONSENT`).
///
/// https://developer.apple.com/documentation/appstoreservernotifications/appdata
public struct AppData: Codable, Hashable, Sendable {
    public var appAppleId: Int64?
    public var bundleId: String?
    public var environment: AppStoreEnvironment?
    /// A JWS whose payload is an `AppTransaction`.
    public var signedAppTransactionInfo: String?

    public init(
        appAppleId: Int64? = nil,
        bundleId: String? = nil,
        environment: AppStoreEnvironment? = nil,
        signedAppTransactionInfo: String? = nil
    ) {
        self.appAppleId = appAppleId
        self.bundleId = bundleId
        self.environment = environment
        self.signedAppTransactionInfo = signedAppTransactionInfo
    }
}
