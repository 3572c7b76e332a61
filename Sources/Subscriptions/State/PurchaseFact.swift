import AppStore

/// One fact about a purchase, kept in its history: a notification, or a transaction the app posted.
///
/// A purchase's state is the fold of its facts in `(signedDateMs, id)` order, so the order in
/// which Apple delivered them does not matter (see `FactFolding`).
public struct PurchaseFact: Codable, Hashable, Sendable {
    /// Where a fact came from.
    public enum Source: Codable, Hashable, Sendable {
        /// A verified App Store Server Notification; type and subtype keep unknown raw values.
        case notification(type: NotificationTypeV2, subtype: Subtype?)
        /// A StoreKit transaction the app posted for a customer.
        case transactionPosted
        /// What the App Store Server API said of a subscription when asked (its latest
        /// transaction and renewal info): reconciliation.
        case appleAPI
    }

    /// Whether what it tells may be told after the fact: an answer of Apple's (asked by an import,
    /// days after a lapse) or an EXPIRED, signed once the period ended.
    var tellsAfterTheFact: Bool {
        switch source {
        case .appleAPI: true
        case .notification(let type, _): type == .expired
        case .transactionPosted: false
        }
    }

    /// The notification's UUID, or `posted:<transactionId>:<signedDate>` for a posted transaction.
    public var id: String
    public var source: Source
    /// Apple's `signedDate` of the notification (or of the posted transaction), UNIX milliseconds.
    public var signedDateMs: Int64
    public var transaction: JWSTransactionDecodedPayload?
    public var renewalInfo: JWSRenewalInfoDecodedPayload?

    /// A fact from its parts.
    public init(
        id: String,
        source: Source,
        signedDateMs: Int64,
        transaction: JWSTransactionDecodedPayload?,
        renewalInfo: JWSRenewalInfoDecodedPayload?
    ) {
        self.id = id
        self.source = source
        self.signedDateMs = signedDateMs
        self.transaction = transaction
        self.renewalInfo = renewalInfo
    }

    /// The fact a notification carries.
    public init(_ facts: VerifiedNotificationFacts) {
        self.init(
            id: facts.notificationUUID,
            source: .notification(type: facts.notificationType, subtype: facts.subtype),
            signedDateMs: facts.signedDateMs,
            transaction: facts.transaction,
            renewalInfo: facts.renewalInfo
        )
    }

    /// The fact an App Store Server API answer carries about a purchase: its latest transaction
    /// and renewal info, dated by Apple's signature (when Apple answered). Reading the same
    /// answer twice is one fact.
    public init(appleAPI transaction: JWSTransactionDecodedPayload, renewalInfo: JWSRenewalInfoDecodedPayload?) {
        let signedDate = max(transaction.signedDate ?? 0, renewalInfo?.signedDate ?? 0)
        self.init(
            id: "apple:\(transaction.transactionId ?? ""):\(signedDate)", source: .appleAPI, signedDateMs: signedDate,
            transaction: transaction, renewalInfo: renewalInfo)
    }

    /// The fact a past transaction from Transaction History carries: folded at its purchase
    /// date (Apple signs the whole history when asked, so its signed dates say nothing of order),
    /// its snapshot still dated by Apple's signature. Importing it twice is one fact.
    public init(appleHistory transaction: JWSTransactionDecodedPayload) {
        let purchased = transaction.purchaseDate ?? transaction.signedDate ?? 0
        self.init(
            id: "apple-history:\(transaction.transactionId ?? ""):\(purchased)", source: .appleAPI, signedDateMs: purchased,
            transaction: transaction, renewalInfo: nil)
    }

    /// The fact a posted transaction carries; posting the same signed transaction twice is one fact.
    public init(posted transaction: JWSTransactionDecodedPayload) {
        let signedDate = transaction.signedDate ?? transaction.purchaseDate ?? 0
        self.init(
            id: "posted:\(transaction.transactionId ?? ""):\(signedDate)",
            source: .transactionPosted,
            signedDateMs: signedDate,
            transaction: transaction,
            renewalInfo: nil
        )
    }

    /// The order facts are folded in: by `signedDateMs`, ties broken by `id`.
    public static func isFoldedBefore(_ lhs: PurchaseFact, _ rhs: PurchaseFact) -> Bool {
        (lhs.signedDateMs, lhs.id) < (rhs.signedDateMs, rhs.id)
    }

    /// The notification type, or nil for a posted transaction.
    public var notificationType: NotificationTypeV2? {
        if case .notification(let type, _) = source { return type }
        return nil
    }

    /// The `transactionId` this fact's transaction snapshot is about.
    var transactionId: String? { transaction?.transactionId }

    /// The newest signed date of this fact's transaction snapshot (its own, else the fact's).
    var transactionSignedDateMs: Int64 { transaction?.signedDate ?? signedDateMs }
}
