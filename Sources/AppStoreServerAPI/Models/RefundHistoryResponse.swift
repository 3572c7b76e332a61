import AppStore

/// A page of a customer's refunded transactions (Get Refund History, version 2).
///
/// https://developer.apple.com/documentation/appstoreserverapi/refundhistoryresponse
public struct RefundHistoryResponse: Codable, Hashable, Sendable {
    /// `JWSTransaction`s.
    public var signedTransactions: [String]?
    /// Pass back to get the next page.
    public var revision: String?
    public var hasMore: Bool?

    public init(
        signedTransactions: [String]? = nil,
        revision: String? = nil,
        hasMore: Bool? = nil
    ) {
        self.signedTransactions = signedTransactions
        self.revision = revision
        self.hasMore = hasMore
    }
}
