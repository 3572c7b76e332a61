/// The external purchase token of an `EXTERNAL_PURCHASE_TOKEN` notification.
///
/// It has no environment field: an `externalPurchaseId` starting with `SANDBOX` means Sandbox.
///
/// https://developer.apple.com/documentation/appstoreservernotifications/externalpurchasetoken
public struct ExternalPurchaseToken: Codable, Hashable, Sendable {
    public var externalPurchaseId: String?
    /// UNIX time in milliseconds.
    @Milliseconds public var tokenCreationDate: Int64?
    public var appAppleId: Int64?
    public var bundleId: String?
    /// UNIX time in milliseconds.
    @Milliseconds public var tokenExpirationDate: Int64?
    /// Present only for custom-link tokens.
    public var tokenType: ExternalPurchaseTokenType?

    public init(
        externalPurchaseId: String? = nil,
        tokenCreationDate: Int64? = nil,
        appAppleId: Int64? = nil,
        bundleId: String? = nil,
        tokenExpirationDate: Int64? = nil,
        tokenType: ExternalPurchaseTokenType? = nil
    ) {
        self.externalPurchaseId = externalPurchaseId
        self.tokenCreationDate = tokenCreationDate
        self.appAppleId = appAppleId
        self.bundleId = bundleId
        self.tokenExpirationDate = tokenExpirationDate
        self.tokenType = tokenType
    }
}
