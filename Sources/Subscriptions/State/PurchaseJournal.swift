import AppStore

/// What a purchase has been told and has said: kept as is when its state is refolded.
///
/// The facts are the input history (sorted in fold order); the event ids are every event the
/// purchase ever produced, which is what makes "never twice" structural: an event whose id is
/// here is not produced again, whatever order or number of times its cause arrives.
public struct PurchaseJournal: Codable, Hashable, Sendable {
    /// The customer the purchase belongs to; nil while no one has claimed it.
    public package(set) var ownerAppUserId: String?
    /// Every fact received, sorted by `PurchaseFact.isFoldedBefore`; unknown types included.
    public package(set) var facts: [PurchaseFact] = []
    /// Every event id produced, sorted (a stable encoding and a binary search).
    public package(set) var emittedEventIds: [String] = []
    /// Events produced while the purchase had no owner, released in order when it is linked; after
    /// the `storedHeldEventCount` older ones a shell keeps apart (`storingHeldEventsApart`).
    public package(set) var heldEvents: [Event] = []
    /// How many held events, older than `heldEvents`, a shell keeps apart instead of in the
    /// journal (nil for none): the journal of a purchase nobody claims would otherwise grow with
    /// every event, and be read and written whole with each one. They must be handed back
    /// (`restoringHeldEvents`) before an input gives the purchase its owner, which releases them;
    /// a shell that cannot tell beforehand applies the input, sees the purchase owned, and applies
    /// it again on a slice with them restored.
    public package(set) var storedHeldEventCount: Int?
    /// How many times the purchase changed owner (numbers `TRANSFER` causes).
    public package(set) var transferCount = 0
    /// The offering the app last said it sold the purchase from, posting one of its transactions
    /// (RevenueCat's `presented_offering_id`); nil while none was said.
    public package(set) var presentedOfferingId: String?

    /// An empty journal, optionally already owned.
    public init(ownerAppUserId: String? = nil) {
        self.ownerAppUserId = ownerAppUserId
    }

    /// The journal with the held events a shell kept apart put back in front of `heldEvents`.
    /// `stored` must be all of them, oldest first (`storedHeldEventCount` of them).
    public func restoringHeldEvents(_ stored: [Event]) -> PurchaseJournal {
        var copy = self
        copy.heldEvents = stored + heldEvents
        copy.storedHeldEventCount = nil
        return copy
    }

    /// The journal once the shell keeps the first `count` of `heldEvents` (all of them by default)
    /// apart too: they join the stored count.
    public func storingHeldEventsApart(first count: Int? = nil) -> PurchaseJournal {
        var copy = self
        let moved = min(count ?? heldEvents.count, heldEvents.count)
        let total = (storedHeldEventCount ?? 0) + moved
        copy.heldEvents.removeFirst(moved)
        copy.storedHeldEventCount = total == 0 ? nil : total
        return copy
    }

    /// Whether a fact with this id was already received.
    public func hasFact(id: String) -> Bool {
        facts.contains { $0.id == id }
    }

    /// Whether an event with this id was already produced.
    public func hasEmitted(_ eventId: String) -> Bool {
        let index = emittedEventIds.sortedInsertionIndex(of: eventId)
        return index < emittedEventIds.count && emittedEventIds[index] == eventId
    }

    /// The cause of a refund's CANCELLATION learned from the refunded transaction itself (posted
    /// by the app, or in an answer of Apple's), rather than from its REFUND notification.
    static func reportedRefundCause(_ transactionId: String, _ revokedAtMs: Int64) -> String {
        "\(transactionId)/REFUND/\(revokedAtMs)"
    }

    /// Whether the refunded transaction itself gave the CANCELLATION of its refund at `revokedAtMs`.
    func hasReportedRefund(of transactionId: String, at revokedAtMs: Int64) -> Bool {
        hasEmitted(EventID.make(cause: Self.reportedRefundCause(transactionId, revokedAtMs)))
    }

    /// Whether a REFUND notification about `transactionId` is among the facts. Read when a
    /// refunded transaction arrives otherwise (`needsEveryFact(toReceive:)`).
    func hasRefundNotification(about transactionId: String) -> Bool {
        facts.contains { $0.source == .notification(type: .refund, subtype: nil) && $0.transactionId == transactionId }
    }

    /// Whether receiving `incoming` reads facts older than the newest: a storage that keeps only
    /// the newest at hand must give the journal every fact first. So it is when `incoming` does
    /// not fold after the newest (the state is refolded, or it is a duplicate), and when it shows
    /// a refunded transaction outside a notification: its CANCELLATION is given unless a REFUND
    /// notification among the facts gave it (`hasRefundNotification(about:)`).
    ///
    /// A renewal-status notice that may only restate auto-renew as the newest fact left it (the
    /// newest says the same, or says nothing of it) reads them too: the change it tells of may
    /// have been reported by an answer of Apple's further back in the same run
    /// (`SubscriptionState.autoRenewChangeReported`).
    public func needsEveryFact(toReceive incoming: PurchaseFact) -> Bool {
        guard let newest = facts.last else { return false }
        if !PurchaseFact.isFoldedBefore(newest, incoming) { return true }
        if case .notification(.didChangeRenewalStatus, let subtype) = incoming.source {
            let opposite: AutoRenewStatus? =
                switch subtype {
                case .autoRenewEnabled?: .off
                case .autoRenewDisabled?: .on
                default: nil
                }
            guard let opposite else { return false }
            return newest.renewalInfo?.autoRenewStatus != opposite
        }
        if case .notification = incoming.source { return false }
        return incoming.transaction?.revocationDate != nil
    }

    /// Records an event id; false when it was already recorded.
    mutating func recordEmission(_ eventId: String) -> Bool {
        let index = emittedEventIds.sortedInsertionIndex(of: eventId)
        if index < emittedEventIds.count && emittedEventIds[index] == eventId { return false }
        emittedEventIds.insert(eventId, at: index)
        return true
    }

    /// Inserts a fact at its place in fold order and returns that place.
    mutating func insert(_ fact: PurchaseFact) -> Int {
        let index = insertionIndex(of: fact)
        facts.insert(fact, at: index)
        return index
    }

    /// Where `fact` belongs in fold order.
    func insertionIndex(of fact: PurchaseFact) -> Int {
        var low = 0
        var high = facts.count
        while low < high {
            let middle = (low + high) / 2
            if PurchaseFact.isFoldedBefore(facts[middle], fact) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

extension Array where Element == String {
    /// The first index whose element is not less than `value`, in an ascending array.
    func sortedInsertionIndex(of value: String) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if self[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
