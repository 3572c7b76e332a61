import Crypto

/// How the ids of the anonymous customers tracking makes (`trackNewPurchasesFromServerNotifications`)
/// are written: a choice of the database, made once when it is created, so that `replay` gives
/// every customer the id it had.
public enum AnonymousIds: Codable, Hashable, Sendable {
    /// `$RevenueDotAnonymous:<originalTransactionId>`: databases made before the choice existed.
    case revenueDot
    /// RevenueCat's form, `$RCAnonymousID:` and 32 lowercase hexadecimal digits, which consumers
    /// and RevenueCat's SDKs recognise as anonymous: the HMAC-SHA256 of the purchase's id keyed
    /// by the database's secret `key`, so no one outside can name the customer of a purchase.
    case revenueCat(key: String)

    /// RevenueCat's prefix of anonymous ids.
    public static let revenueCatPrefix = "$RCAnonymousID:"

    /// The id of the customer made for `purchase`; `originalTransactionId` is its transaction's,
    /// which RevenueDot's form names (a one-time purchase's may differ from its key's id).
    public func id(for purchase: PurchaseKey, originalTransactionId: String?) -> String {
        switch self {
        case .revenueDot: return CustomerState.anonymousPrefix + (originalTransactionId ?? purchase.id)
        case .revenueCat(let key):
            let digest = Digest.hmacSHA256(key: Array(key.utf8), data: Array("anonymous/\(purchase.id)".utf8))
            return Self.revenueCatPrefix + Digest.hex(Array(digest.prefix(16)))
        }
    }

    /// Whether `appUserId` is the id tracking made for `purchase` alone.
    public func isMade(_ appUserId: String, for purchase: PurchaseKey) -> Bool {
        switch self {
        case .revenueDot: return appUserId.hasPrefix(CustomerState.anonymousPrefix)
        case .revenueCat:
            return appUserId.hasPrefix(Self.revenueCatPrefix)
                && appUserId == id(for: purchase, originalTransactionId: nil)
        }
    }
}
