/// Why the App Store refunded a transaction or revoked it from Family Sharing.
///
/// https://developer.apple.com/documentation/appstoreserverapi/revocationreason
public enum RevocationReason: OpenEnum {
    /// Refunded for another reason, such as an accidental purchase.
    case refundedForOtherReason
    /// Refunded because of an actual or perceived issue in the app.
    case refundedDueToIssue
    case unknown(Int32)

    public static let knownValues: [Self] = [
        .refundedForOtherReason, .refundedDueToIssue,
    ]

    public var rawValue: Int32 {
        switch self {
        case .refundedForOtherReason: 0
        case .refundedDueToIssue: 1
        case .unknown(let rawValue): rawValue
        }
    }
}
