import AppStore

/// The transactions of an order ID from a customer's receipt (Look Up Order ID).
///
/// https://developer.apple.com/documentation/appstoreserverapi/orderlookupresponse
public struct OrderLookupResponse: Codable, Hashable, Sendable {
    public var status: OrderLookupStatus?
    /// `JWSTransaction`s.
    public var signedTransactions: [String]?

    public init(
        status: OrderLookupStatus? = nil,
        signedTransactions: [String]? = nil
    ) {
        self.status = status
        self.signedTransactions = signedTransactions
    }
}
