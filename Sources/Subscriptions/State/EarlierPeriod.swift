import AppStore
import JSON

/// What a subscription keeps of a period once a later one is known: enough to order and number
/// the periods and to tell whether a trial converted, not the whole transaction.
///
/// A subscription kept the newest snapshot of every period it ever had, and its state is read and
/// written whole with every notification: one renewing monthly for years cost more each month
/// (16.5 KB of state after 24 renewals under the bench, against about 2 KB this way). Every
/// snapshot is still in the purchase's facts, so a refold or a replay rebuilds the same summary.
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

extension EarlierPeriod: SortedJSONWritable {
    public func writeSortedJSON(into writer: inout JSONWriter) throws {
        writer.beginObject()
        writer.optional("currency", currency)
        writer.optional("expiresDate", expiresDate)
        writer.member("periodType", periodType.rawValue)
        writer.optional("price", price)
        writer.optional("productId", productId)
        writer.optional("purchaseDate", purchaseDate)
        writer.optional("signedDate", signedDate)
        writer.optional("transactionId", transactionId)
        writer.endObject()
    }
}

extension EarlierPeriod: JSONValueReadable {
    public init(json: JSONValue) throws {
        let fields = try JSONFields(json, of: Self.self)
        transactionId = try fields.optionalString("transactionId")
        purchaseDate = try fields.optionalInt64("purchaseDate")
        expiresDate = try fields.optionalInt64("expiresDate")
        signedDate = try fields.optionalInt64("signedDate")
        periodType = try fields.closed("periodType", PeriodType.self)
        productId = try fields.optionalString("productId")
        price = try fields.optionalInt64("price")
        currency = try fields.optionalString("currency")
    }
}
