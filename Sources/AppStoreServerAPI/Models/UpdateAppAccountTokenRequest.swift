import AppStore

/// The app account token to set on a purchase (Set App Account Token).
///
/// https://developer.apple.com/documentation/appstoreserverapi/updateappaccounttokenrequest
public struct UpdateAppAccountTokenRequest: Codable, Hashable, Sendable {
    /// A UUID.
    public var appAccountToken: String?

    public init(
        appAccountToken: String? = nil
    ) {
        self.appAccountToken = appAccountToken
    }
}
