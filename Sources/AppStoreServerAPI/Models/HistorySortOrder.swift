import AppStore

/// The order of Get Transaction History's pages, by modification date.
///
/// https://developer.apple.com/documentation/appstoreserverapi/gettransactionhistory
public enum HistorySortOrder: OpenEnum {
    case ascending
    case descending
    case unknown(String)

    public static let knownValues: [Self] = [.ascending, .descending]

    public var rawValue: String {
        switch self {
        case .ascending: "ASCENDING"
        case .descending: "DESCENDING"
        case .unknown(let rawValue): rawValue
        }
    }
}
