import AppStore

/// A page of a customer's transactions (Get Transaction History, version 2).
///
/// https://developer.apple.com/documentation/appstoreserverapi/historyresponse
public struct HistoryResponse: Codable, Hashable, Sendable {
    /// Pass back to get the next page.
    public var revision: String?
    public var hasMore: Bool?
    public var bundleId: String?
    public var appAppleId: Int64?
    public var environment: AppStoreEnvironment?
    /// `JWSTransaction`s, at most 20.
    public var signedTransactions: [String]?

    public init(
        revision: String? = nil,
        hasMore: Bool? = nil,
        bundleId: String? = nil,
        appAppleId: Int64? = nil,
        environment: AppStoreEnvironment? = nil,
        signedTransactions: [String]? = nil
    ) {
        self.revision = revision
        self.hasMore = hasMore
        self.bundleId = bundleId
        self.appAppleId = appAppleId
        self.environment = environment
        self.signedTransactions = signedTransactions
    }
}
