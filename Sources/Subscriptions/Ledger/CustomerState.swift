/// A customer: an `app_user_id`, its aliases, first-seen time, purchases and event counter.
///
/// RevenueCat's `original_app_user_id` is the customer's first id (`originalAppUserId`, else
/// `appUserId`), and `aliases` lists every id the customer is known by, itself included.
/// https://www.revenuecat.com/docs/api-v1
public struct CustomerState: Codable, Hashable, Sendable {
    /// The prefix of a customer created for a purchase nobody claimed, when
    /// `trackNewPurchasesFromServerNotifications` is on, in databases that write such ids
    /// RevenueDot's way (`AnonymousIds.revenueDot`).
    public static let anonymousPrefix = "$RevenueDotAnonymous:"

    /// The id the app knows the customer by (RevenueCat's `app_user_id`).
    public let appUserId: String
    /// Every id of this customer, sorted, `appUserId` included.
    public package(set) var aliases: [String]
    /// The `now` at which the customer was created, UNIX milliseconds (the earliest of two merged).
    public package(set) var firstSeenMs: Int64
    /// RevenueCat's `original_app_user_id`: the first id of the customer, when a merge made an
    /// older id part of it (an anonymous id that logged in); nil when it is `appUserId`.
    public package(set) var originalAppUserId: String?
    /// The subscriptions the customer owns, sorted.
    public package(set) var originalTransactionIds: [String] = []
    /// The one-time purchases the customer owns, sorted.
    public package(set) var oneTimeTransactionIds: [String] = []
    /// The `sequence` of the last event delivered to this customer; 0 before the first.
    public package(set) var lastSequence: Int64 = 0
    /// The app's first version and download date, from an AppTransaction the app posted.
    public package(set) var originalApplicationVersion: String?
    public package(set) var originalPurchaseDateMs: Int64?
    /// Entitlements the app's backend granted it (RevenueCat's promotional entitlements).
    public package(set) var promotionalGrants: [PromotionalGrant]?
    /// Its attributes by key, deleted ones included (`SubscriberAttribute`); nil when none.
    public package(set) var attributes: [String: SubscriberAttribute]?
    /// True when tracking made it, named by a notification's UUID `appAccountToken`, rather than
    /// the app; nil otherwise.
    public package(set) var madeByTracking: Bool?
    /// The offering the app's backend made its current one (RevenueCat's offering override);
    /// nil for the app's current offering.
    public package(set) var offeringOverride: String?

    /// A new customer with no purchases.
    public init(appUserId: String, firstSeenMs: Int64) {
        self.appUserId = appUserId
        self.aliases = [appUserId]
        self.firstSeenMs = firstSeenMs
    }

    /// The first id of the customer (RevenueCat's `original_app_user_id`).
    public var firstAppUserId: String { originalAppUserId ?? appUserId }

    /// Every purchase it owns: its subscriptions, then its one-time purchases, each sorted.
    public var purchases: [PurchaseKey] {
        originalTransactionIds.map { PurchaseKey.subscription(originalTransactionId: $0) }
            + oneTimeTransactionIds.map { PurchaseKey.oneTime(transactionId: $0) }
    }

    /// Whether it owns `purchases` and nothing else, and has no other id, grant, attribute or
    /// offering override: a customer tracking made and nothing has touched since.
    func holdsOnly(_ purchases: [PurchaseKey]) -> Bool {
        self.purchases == purchases && aliases == [appUserId] && promotionalGrants == nil && attributes == nil
            && offeringOverride == nil
    }

    /// Whether the customer owns this purchase.
    public func owns(_ purchase: PurchaseKey) -> Bool {
        switch purchase {
        case .subscription(let id): originalTransactionIds.contains(id)
        case .oneTime(let id): oneTimeTransactionIds.contains(id)
        }
    }

    mutating func add(_ purchase: PurchaseKey) {
        switch purchase {
        case .subscription(let id): originalTransactionIds.insertSorted(id)
        case .oneTime(let id): oneTimeTransactionIds.insertSorted(id)
        }
    }

    mutating func remove(_ purchase: PurchaseKey) {
        switch purchase {
        case .subscription(let id): originalTransactionIds.removeAll { $0 == id }
        case .oneTime(let id): oneTimeTransactionIds.removeAll { $0 == id }
        }
    }

    /// The next event sequence number, counted.
    mutating func nextSequence() -> Int64 {
        lastSequence += 1
        return lastSequence
    }
}

/// Which purchase a fact or a link is about.
public enum PurchaseKey: Codable, Hashable, Sendable {
    /// An auto-renewable subscription, by `originalTransactionId`.
    case subscription(originalTransactionId: String)
    /// A consumable, non-consumable or non-renewing purchase, by `transactionId`.
    case oneTime(transactionId: String)

    /// The purchase's id: an `originalTransactionId` or a `transactionId` (unique across both).
    public var id: String {
        switch self {
        case .subscription(let id), .oneTime(let id): id
        }
    }

    public var isSubscription: Bool {
        if case .subscription = self { return true }
        return false
    }
}

extension Array where Element == String {
    /// Inserts `value` in an ascending array unless present.
    mutating func insertSorted(_ value: String) {
        let index = sortedInsertionIndex(of: value)
        if index < count && self[index] == value { return }
        insert(value, at: index)
    }
}
