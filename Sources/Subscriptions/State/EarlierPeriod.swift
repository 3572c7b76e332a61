import AppStore

/// What a subscription keeps of a period once a later one is known: enough to order and number
/// the periods and to tell whether a trial converted, not the whole transaction.
///
/// A subscription's state is read and written whole with every notification, so keeping the
/// newest snapshot of every period it ever had would make one renewing monthly for years cost
/// more each month. Every snapshot is still in the purchase's facts, so a refold or a replay
/// rebuilds the same summary.
public struct EarlierPeriod: Codable, Hashable, Sendable {
    public var transactionId: String?
    public var purchaseDate: Int64?
    public var expiresDate: Int64?
    /// The snapshot's own `signedDate`: a newer snapshot of the period replaces this one.
    public var signedDate: Int64?
    /// RevenueCat's period type of the period (`SubscriptionState.periodType(of:)`).
    public var periodType: PeriodType
    /// The period's product: a subscription that changed plans shows each product it had
    /// (`SubscriptionState.earlierProducts`). Nil in summaries stored before it was kept.
    public var productId: String?
    /// The period's price (milliunits) and currency, for the product's entry in `subscriptions`.
    /// Nil in summaries stored before they were kept.
    public var price: Int64?
    public var currency: String?

    /// Every member, for the store's reader of stored states.
    package init(
        transactionId: String?, purchaseDate: Int64?, expiresDate: Int64?, signedDate: Int64?, periodType: PeriodType,
        productId: String?, price: Int64?, currency: String?
    ) {
        self.transactionId = transactionId
        self.purchaseDate = purchaseDate
        self.expiresDate = expiresDate
        self.signedDate = signedDate
        self.periodType = periodType
        self.productId = productId
        self.price = price
        self.currency = currency
    }

    /// The summary of `transaction`, a snapshot of the period.
    public init(_ transaction: JWSTransactionDecodedPayload) {
        transactionId = transaction.transactionId
        purchaseDate = transaction.purchaseDate
        expiresDate = transaction.expiresDate
        signedDate = transaction.signedDate
        periodType = SubscriptionState.periodType(of: transaction)
        productId = transaction.productId
        price = transaction.price
        currency = transaction.currency
    }
}
