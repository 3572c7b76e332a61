/// Whether a transaction is a customer's purchase or an automatic renewal.
///
/// https://developer.apple.com/documentation/appstoreserverapi/transactionreason
public enum TransactionReason: OpenEnum {
    case purchase
    case renewal
    case unknown(String)

    public static let knownValues: [Self] = [
        .purchase, .renewal,
    ]

    public var rawValue: String {
        switch self {
        case .purchase: "PURCHASE"
        case .renewal: "RENEWAL"
        case .unknown(let rawValue): rawValue
        }
    }
}
