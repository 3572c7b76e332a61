/// Whether an auto-renewable subscription renews at the end of its period.
///
/// https://developer.apple.com/documentation/appstoreserverapi/autorenewstatus
public enum AutoRenewStatus: OpenEnum {
    case off
    case on
    case unknown(Int32)

    public static let knownValues: [Self] = [
        .off, .on,
    ]

    public var rawValue: Int32 {
        switch self {
        case .off: 0
        case .on: 1
        case .unknown(let rawValue): rawValue
        }
    }
}
