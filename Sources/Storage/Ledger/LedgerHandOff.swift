import Subscriptions

/// The single place a stored notification reaches the subscription logic: inside the storage
/// transaction that holds it, the reducer applies it to the purchase's slice of state, and the
/// new state, its events and its timers commit together with the notification.
public struct LedgerHandOff: NotificationHandOff {
    /// The app a notification belongs to, by id, as it is configured now; nil for none.
    public let app: @Sendable (String) -> LedgerApp?
    /// What the store keeps decoded (`LedgerCache`), shared with the other inputs applied to it.
    public let cache: LedgerCache?

    public init(app: @escaping @Sendable (String) -> LedgerApp?, cache: LedgerCache? = nil) {
        self.app = app
        self.cache = cache
    }

    public func handOff(_ record: NotificationRecord, in transaction: WriteTransaction) throws -> NotificationState {
        // Held notifications (another bundle or environment) wait for a configuration fix.
        guard record.state == .received, let app = app(record.appId) else { return record.state }
        try LedgerInputs.apply(
            .notificationReceived(try record.verifiedFacts()), app: app, atMs: record.receivedAt, cache: cache,
            in: transaction)
        try LedgerInputs.log(
            kind: "notification", ref: record.notificationUUID, appId: app.id, atMs: record.receivedAt, in: transaction)
        return .applied
    }
}
