/// How a transaction was revoked: a full or prorated refund, or Family Sharing revocation.
///
/// https://developer.apple.com/documentation/appstoreserverapi/revocationtype
public enum RevocationType: OpenEnum {
    case refundFull
    case refundProrated
    case familyRevoke
    case unknown(String)

    public static let knownValues: [Self] = [
        .refundFull, .refundProrated, .familyRevoke,
    ]

    public var rawValue: String {
        switch self {
        case .refundFull: "REFUND_FULL"
        case .refundProrated: "REFUND_PRORATED"
        case .familyRevoke: "FAMILY_REVOKE"
        case .unknown(let rawValue): rawValue
        }
    }
}
