import AppStore

/// Whether an order ID is valid.
///
/// https://developer.apple.com/documentation/appstoreserverapi/orderlookupstatus
public enum OrderLookupStatus: OpenEnum {
    case valid
    case invalid
    case unknown(Int32)

    public static let knownValues: [Self] = [.valid, .invalid]

    public var rawValue: Int32 {
        switch self {
        case .valid: 0
        case .invalid: 1
        case .unknown(let rawValue): rawValue
        }
    }
}
