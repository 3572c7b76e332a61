import Subscriptions

@testable import Server
@testable import Storage
@testable import Tools

extension LedgerRows {
    /// The journal a purchase row holds (`json`, `history`, `history_snapshots` of the purchase
    /// keyed `key`), with the snapshots it left out taken back from its state, as loading the
    /// purchase does: for tests that read rows directly.
    static func storedJournal(key: String, json: String, history: String, snapshots: String?) throws -> PurchaseJournal {
        if key.hasPrefix("o:") {
            return try withHistory(decode(OneTimePurchase.self, json), history, snapshots: snapshots).journal
        }
        return try withHistory(decode(SubscriptionState.self, json), history, snapshots: snapshots).journal
    }
}
