/// Whether the customer bought the purchase or has it through Family Sharing.
///
/// https://developer.apple.com/documentation/appstoreserverapi/inappownershiptype
public enum InAppOwnershipType: OpenEnum {
    case familyShared
    case purchased
    case unknown(String)

    public static let knownValues: [Self] = [
        .familyShared, .purchased,
    ]

    public var rawValue: String {
        switch self {
        case .familyShared: "FAMILY_SHARED"
        case .purchased: "PURCHASED"
        case .unknown(let rawValue): rawValue
        }
    }
}
