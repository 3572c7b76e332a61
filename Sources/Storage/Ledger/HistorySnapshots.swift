import AppStore
import JSON
import Subscriptions

/// The newest fact a purchase's history keeps (`PurchaseFactRows`) usually carries the very
/// transaction and renewal info snapshots its state holds (the state took them from that fact).
/// They are stored once: the history row leaves them out, and `purchases.history_snapshots`
/// (migration 17) says which to take back from the state when the row is read.
///
/// `history_snapshots` is NULL when nothing was left out, else `t` (the transaction: the one the
/// state keeps whole, its current period's), `r` (the renewal info) or `t,r`: one letter each,
/// since a row saves these bytes to fit two in a page. A snapshot is left out only when it encodes
/// to the same bytes as the state's (`==` compares strings as Unicode, where different bytes can
/// be equal), so taking it back gives the fact as it was, and the row's bytes do not depend on the
/// order the facts came in.
///
/// The marker carries no digest of what it names (unlike a compact payload's references to its
/// snapshots): both the state and the history are derived rows, which a replay rebuilds from the
/// stored notifications, and a state changed behind RevenueDot's back is wrong whatever its
/// history says.
public enum HistorySnapshots {
    /// `journal` as stored beside `purchase`, and what it left out (nil: nothing).
    ///
    /// Only a history of one fact (what `PurchaseFactRows.save` keeps) leaves anything out, so the
    /// marker needs no fact's name; rows with several (written before migration 8) are kept whole.
    public static func leavingOut(of journal: PurchaseJournal, keptBy purchase: some KeepsSnapshots) -> (PurchaseJournal, String?)
    {
        guard journal.facts.count == 1, var newest = journal.facts.last else { return (journal, nil) }
        var left: [String] = []
        if let transaction = newest.transaction, let kept = purchase.keptTransaction, kept == transaction,
            sameEncoding(kept, transaction)
        {
            newest.transaction = nil
            left.append(transactionCode)
        }
        if let renewal = newest.renewalInfo, let kept = purchase.keptRenewalInfo, kept == renewal, sameEncoding(kept, renewal) {
            newest.renewalInfo = nil
            left.append(renewalInfoCode)
        }
        guard !left.isEmpty else { return (journal, nil) }
        return (journal.replacingFacts([newest]), left.joined(separator: ","))
    }

    /// `journal` as read from a row beside `purchase`, with what `snapshots` says was left out put back.
    public static func takingBack(into journal: PurchaseJournal, from snapshots: String?, keptBy purchase: some KeepsSnapshots)
        throws -> PurchaseJournal
    {
        guard let snapshots else { return journal }
        guard journal.facts.count == 1, var newest = journal.facts.last else {
            throw HistorySnapshotsError(
                "history_snapshots \(snapshots) names snapshots of a history of \(journal.facts.count) facts, not one")
        }
        for entry in snapshots.split(separator: ",", omittingEmptySubsequences: false) {
            if entry == renewalInfoCode, newest.renewalInfo == nil, let renewal = purchase.keptRenewalInfo {
                newest.renewalInfo = renewal
            } else if entry == transactionCode, newest.transaction == nil, let transaction = purchase.keptTransaction {
                newest.transaction = transaction
            } else {
                throw HistorySnapshotsError("history_snapshots entry \(entry) names nothing the state keeps")
            }
        }
        return journal.replacingFacts([newest])
    }

    private static let transactionCode = "t"
    private static let renewalInfoCode = "r"

    /// Whether two snapshots are stored as the same bytes (checked only once `==` holds).
    private static func sameEncoding<Snapshot: SortedJSONWritable>(_ a: Snapshot, _ b: Snapshot) -> Bool {
        guard let left = try? LedgerRows.encode(a), let right = try? LedgerRows.encode(b) else { return false }
        return PurchaseCache.sameBytes(left, right)
    }

    /// The text a purchase cache compares for a row: its history and what it left out.
    public static func cacheKey(history: String?, snapshots: String?) -> String? {
        guard let snapshots else { return history }
        return (history ?? "") + "\u{0}" + snapshots
    }
}

public struct HistorySnapshotsError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The snapshots a purchase's state keeps whole, which its newest fact may share.
public protocol KeepsSnapshots {
    /// The transaction snapshot the state keeps whole (a subscription's current period), if any.
    var keptTransaction: JWSTransactionDecodedPayload? { get }
    /// The renewal info the state keeps, if any.
    var keptRenewalInfo: JWSRenewalInfoDecodedPayload? { get }
}

extension SubscriptionState: KeepsSnapshots {
    public var keptTransaction: JWSTransactionDecodedPayload? { currentTransaction }
    public var keptRenewalInfo: JWSRenewalInfoDecodedPayload? { renewalInfo }
}

extension OneTimePurchase: KeepsSnapshots {
    public var keptTransaction: JWSTransactionDecodedPayload? { transaction }
    public var keptRenewalInfo: JWSRenewalInfoDecodedPayload? { nil }
}
