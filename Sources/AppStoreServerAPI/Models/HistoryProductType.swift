import AppStore

/// A product type to filter Get Transaction History by.
///
/// https://developer.apple.com/documentation/appstoreserverapi/gettransactionhistory
public enum HistoryProductType: OpenEnum {
    case autoRenewable
    case nonRenewable
    case consumable
    case nonConsumable
    case unknown(String)

    public static let knownValues: [Self] = [.autoRenewable, .nonRenewable, .consumable, .nonConsumable]

    public var rawValue: String {
        switch self {
        case .autoRenewable: "AUTO_RENEWABLE"
        case .nonRenewable: "NON_RENEWABLE"
        case .consumable: "CONSUMABLE"
        case .nonConsumable: "NON_CONSUMABLE"
        case .unknown(let rawValue): rawValue
        }
    }
}
