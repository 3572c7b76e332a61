import AppStore

/// The latest transaction and renewal information of one subscription.
///
/// https://developer.apple.com/documentation/appstoreserverapi/lasttransactionsitem
public struct LastTransactionsItem: Codable, Hashable, Sendable {
    public var status: SubscriptionStatus?
    public var originalTransactionId: String?
    /// A `JWSTransaction`.
    public var signedTransactionInfo: String?
    /// A `JWSRenewalInfo`.
    public var signedRenewalInfo: String?

    public init(
        status: SubscriptionStatus? = nil,
        originalTransactionId: String? = nil,
        signedTransactionInfo: String? = nil,
        signedRenewalInfo: String? = nil
    ) {
        self.status = status
        self.originalTransactionId = originalTransactionId
        self.signedTransactionInfo = signedTransactionInfo
        self.signedRenewalInfo = signedRenewalInfo
    }
}
