import AppStore

/// A refund or Family Sharing revocation of one transaction.
///
/// https://developer.apple.com/documentation/appstoreserverapi/revocationdate
public struct Revocation: Codable, Hashable, Sendable {
    /// The refunded or revoked transaction.
    public var transactionId: String
    /// Apple's `revocationDate`, else the notification's signed date.
    public var atMs: Int64
    /// Apple's `revocationReason`.
    public var reason: RevocationReason?
    /// `REFUND_FULL`, `REFUND_PRORATED` or `FAMILY_REVOKE`.
    public var type: RevocationType?
    /// Milliunits of a percent (`100000` is all); nil means all.
    public var percentage: Int32?

    /// A revocation from its parts.
    public init(
        transactionId: String, atMs: Int64, reason: RevocationReason? = nil, type: RevocationType? = nil,
        percentage: Int32? = nil
    ) {
        self.transactionId = transactionId
        self.atMs = atMs
        self.reason = reason
        self.type = type
        self.percentage = percentage
    }

    /// Whether a revoked transaction lost its access through Family Sharing rather than a refund:
    /// Apple says so (`FAMILY_REVOKE`), or the member's shared copy says it (a family member is
    /// never refunded), for a transaction signed without `revocationType`.
    static func isFamilySharing(_ transaction: JWSTransactionDecodedPayload) -> Bool {
        transaction.revocationType == .familyRevoke || transaction.inAppOwnershipType == .familyShared
    }

    /// The revocation a fact's transaction carries: its `revocationDate`, else the fact's date.
    init?(in fact: PurchaseFact) {
        guard let transaction = fact.transaction, let id = transaction.transactionId else { return nil }
        self.init(
            transactionId: id, atMs: transaction.revocationDate ?? fact.signedDateMs,
            reason: transaction.revocationReason, type: transaction.revocationType,
            percentage: transaction.revocationPercentage)
    }
}
