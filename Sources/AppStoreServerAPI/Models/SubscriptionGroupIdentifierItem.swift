import AppStore

/// The subscriptions of one subscription group in a `StatusResponse`.
///
/// https://developer.apple.com/documentation/appstoreserverapi/subscriptiongroupidentifieritem
public struct SubscriptionGroupIdentifierItem: Codable, Hashable, Sendable {
    public var subscriptionGroupIdentifier: String?
    public var lastTransactions: [LastTransactionsItem]?

    public init(
        subscriptionGroupIdentifier: String? = nil,
        lastTransactions: [LastTransactionsItem]? = nil
    ) {
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.lastTransactions = lastTransactions
    }
}
