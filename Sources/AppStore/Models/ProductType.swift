/// The type of in-app purchase a transaction is for (the transaction's `type`).
///
/// https://developer.apple.com/documentation/appstoreserverapi/type
public enum ProductType: OpenEnum {
    case autoRenewable
    case nonConsumable
    case consumable
    case nonRenewable
    case unknown(String)

    public static let knownValues: [Self] = [
        .autoRenewable, .nonConsumable, .consumable, .nonRenewable,
    ]

    public var rawValue: String {
        switch self {
        case .autoRenewable: "Auto-Renewable Subscription"
        case .nonConsumable: "Non-Consumable"
        case .consumable: "Consumable"
        case .nonRenewable: "Non-Renewing Subscription"
        case .unknown(let rawValue): rawValue
        }
    }
}
