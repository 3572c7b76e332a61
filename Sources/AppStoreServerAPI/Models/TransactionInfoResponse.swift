import AppStore

/// A transaction's signed information (Get Transaction Info).
///
/// https://developer.apple.com/documentation/appstoreserverapi/transactioninforesponse
public struct TransactionInfoResponse: Codable, Hashable, Sendable {
    /// A `JWSTransaction`.
    public var signedTransactionInfo: String?

    public init(
        signedTransactionInfo: String? = nil
    ) {
        self.signedTransactionInfo = signedTransactionInfo
    }
}
