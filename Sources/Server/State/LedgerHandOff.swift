import AppStore
import Foundation
import Storage
import Subscriptions

/// The single place a stored notification reaches the subscription logic: inside the storage
/// transaction that holds it, the reducer applies it to the purchase's slice of state, and the
/// new state, its events and its timers commit together with the notification.
package struct LedgerHandOff: NotificationHandOff {
    package let apps: [String: AppConfig]
    /// What the store keeps decoded (`LedgerCache`), shared with the other inputs applied to it.
    package let cache: LedgerCache?

    package init(config: RevenueDotConfig, cache: LedgerCache? = nil) {
        apps = Dictionary(uniqueKeysWithValues: config.apps.map { ($0.id, $0) })
        self.cache = cache
    }

    package func handOff(_ record: NotificationRecord, in transaction: WriteTransaction) throws -> NotificationState {
        // Held notifications (another bundle or environment) wait for a configuration fix.
        guard record.state == .received, let app = apps[record.appId] else { return record.state }
        let facts = try record.verifiedFacts()
        try LedgerInputs.apply(
            .notificationReceived(facts), app: app.ledger, atMs: record.receivedAt, cache: cache, in: transaction)
        try LedgerInputs.log(
            kind: "notification", ref: record.notificationUUID, appId: app.id, atMs: record.receivedAt, in: transaction)
        return .applied
    }
}
