import AppStore
import Foundation
import Subscriptions

/// What restores read of Apple accounts' histories lately: for ten minutes, any restore of the
/// account (by any of its subscriptions' original transaction ids) links from it without asking
/// Apple again, so that a restore posted again and again, or a second customer restoring the same
/// account, costs no lookup slot. Bounded: past `capacity` ids, the expired go, then all.
package final class RestoredHistories: Sendable {
    /// A purchase of the account: its latest transaction as Apple signed it.
    package struct Purchase: Sendable {
        package var key: PurchaseKey
        package var signed: String
        package var purchasedMs: Int64
    }

    /// What a restore finds for its account.
    package enum Claim: Sendable {
        /// Read within `ttl`: the account's purchases, oldest first.
        case known([Purchase])
        /// Another restore is reading it now.
        case reading
        /// Nobody has: this restore reads it (`remember`, or `release` when it cannot).
        case claimed
    }

    /// What is known of an account: being read, or read.
    private enum Entry: Sendable {
        case reading
        case read([Purchase])
    }

    /// By account id (`id(app:environment:originalTransactionId:)`).
    private let entries: RecentEntries<Entry>

    package init(ttl: Duration = .seconds(600), capacity: Int = 10_000) {
        entries = RecentEntries(ttl: ttl, capacity: capacity)
    }

    static func id(app: String, environment: AppStoreEnvironment, originalTransactionId: String) -> String {
        "\(app)\u{0}\(environment.rawValue)\u{0}\(originalTransactionId)"
    }

    package func claim(app: String, environment: AppStoreEnvironment, originalTransactionId: String) -> Claim {
        let id = Self.id(app: app, environment: environment, originalTransactionId: originalTransactionId)
        switch entries.valueOrSet(.reading, for: id) {
        case .read(let purchases)?: return .known(purchases)
        case .reading?: return .reading
        case nil: return .claimed
        }
    }

    /// Gives a claim back: the read failed, or was not made.
    package func release(app: String, environment: AppStoreEnvironment, originalTransactionId: String) {
        entries.remove(Self.id(app: app, environment: environment, originalTransactionId: originalTransactionId))
    }

    /// Keeps what a read found, under every original transaction id of the account.
    package func remember(
        _ purchases: [Purchase], app: String, environment: AppStoreEnvironment, originalTransactionIds: Set<String>
    ) {
        let ids = originalTransactionIds.map { Self.id(app: app, environment: environment, originalTransactionId: $0) }
        entries.set(.read(purchases), for: ids)
    }
}
