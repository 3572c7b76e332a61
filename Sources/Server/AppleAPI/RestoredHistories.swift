import AppStore
import Foundation
import Subscriptions
import Synchronization

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

    private let ttl: Duration
    private let capacity: Int
    /// By account id (`id(app:environment:originalTransactionId:)`): when, and what (nil while read).
    private let entries = Mutex<[String: (at: ContinuousClock.Instant, purchases: [Purchase]?)]>([:])

    package init(ttl: Duration = .seconds(600), capacity: Int = 10_000) {
        self.ttl = ttl
        self.capacity = capacity
    }

    static func id(app: String, environment: AppStoreEnvironment, originalTransactionId: String) -> String {
        "\(app)\u{0}\(environment.rawValue)\u{0}\(originalTransactionId)"
    }

    package func claim(app: String, environment: AppStoreEnvironment, originalTransactionId: String) -> Claim {
        let id = Self.id(app: app, environment: environment, originalTransactionId: originalTransactionId)
        return entries.withLock { entries in
            if let entry = entries[id], entry.at.duration(to: .now) < ttl {
                return entry.purchases.map(Claim.known) ?? .reading
            }
            makeRoom(&entries)
            entries[id] = (.now, nil)
            return .claimed
        }
    }

    /// Gives a claim back: the read failed, or was not made.
    package func release(app: String, environment: AppStoreEnvironment, originalTransactionId: String) {
        let id = Self.id(app: app, environment: environment, originalTransactionId: originalTransactionId)
        _ = entries.withLock { $0.removeValue(forKey: id) }
    }

    /// Keeps what a read found, under every original transaction id of the account.
    package func remember(
        _ purchases: [Purchase], app: String, environment: AppStoreEnvironment, originalTransactionIds: Set<String>
    ) {
        entries.withLock { entries in
            makeRoom(&entries)
            for original in originalTransactionIds {
                entries[Self.id(app: app, environment: environment, originalTransactionId: original)] = (.now, purchases)
            }
        }
    }

    private func makeRoom(_ entries: inout [String: (at: ContinuousClock.Instant, purchases: [Purchase]?)]) {
        guard entries.count >= capacity else { return }
        let now = ContinuousClock.now
        entries = entries.filter { $0.value.at.duration(to: now) < ttl }
        if entries.count >= capacity { entries.removeAll() }
    }
}
