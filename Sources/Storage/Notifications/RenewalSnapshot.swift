/// Decoded renewal info carried by one notification, as stored with it.
///
/// Mirrors https://developer.apple.com/documentation/appstoreserverapi/jwsrenewalinfodecodedpayload;
/// `json` keeps the whole decoded payload, the other fields are the ones we index on.
public struct RenewalSnapshot: Sendable, Equatable {
    public var originalTransactionId: String?
    public var productId: String?
    public var environment: String?
    /// When Apple signed it, in milliseconds since 1970.
    public var signedDate: Int64?
    /// The decoded payload as JSON.
    public var json: String

    /// Creates a snapshot; optional fields default to nil.
    public init(
        originalTransactionId: String? = nil,
        productId: String? = nil,
        environment: String? = nil,
        signedDate: Int64? = nil,
        json: String
    ) {
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.environment = environment
        self.signedDate = signedDate
        self.json = json
    }
}
