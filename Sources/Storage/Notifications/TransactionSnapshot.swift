/// A decoded signed transaction, as stored with the notification that carried it.
///
/// Mirrors https://developer.apple.com/documentation/appstoreserverapi/jwstransactiondecodedpayload;
/// `json` keeps the whole decoded payload, the other fields are the ones we index on.
public struct TransactionSnapshot: Sendable, Equatable {
    public var transactionId: String
    public var originalTransactionId: String?
    public var productId: String?
    public var environment: String?
    /// When Apple signed it, in milliseconds since 1970.
    public var signedDate: Int64?
    /// The decoded payload as JSON.
    public var json: String

    /// Creates a snapshot; optional fields default to nil.
    public init(
        transactionId: String,
        originalTransactionId: String? = nil,
        productId: String? = nil,
        environment: String? = nil,
        signedDate: Int64? = nil,
        json: String
    ) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.environment = environment
        self.signedDate = signedDate
        self.json = json
    }
}
