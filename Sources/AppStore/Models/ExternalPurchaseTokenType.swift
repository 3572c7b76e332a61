/// The type of an external purchase custom-link token.
///
/// https://developer.apple.com/documentation/appstoreservernotifications/tokentype
public enum ExternalPurchaseTokenType: OpenEnum {
    case acquisition
    case services
    case inApp
    case linkOut
    case unknown(String)

    public static let knownValues: [Self] = [
        .acquisition, .services, .inApp, .linkOut,
    ]

    public var rawValue: String {
        switch self {
        case .acquisition: "ACQUISITION"
        case .services: "SERVICES"
        case .inApp: "IN_APP"
        case .linkOut: "LINK_OUT"
        case .unknown(let rawValue): rawValue
        }
    }
}
