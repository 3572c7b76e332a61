/// Splitting a purchase into what it is now and the history it was folded from.
///
/// Storage keeps the two apart so that reading a customer (`GET /v1/subscribers`) decodes only
/// the current state, while applying a new fact loads both and joins them again.
public protocol HasPurchaseJournal {
    var journal: PurchaseJournal { get }
    /// The same purchase carrying `journal` instead of its own.
    func replacingJournal(_ journal: PurchaseJournal) -> Self
}

extension HasPurchaseJournal {
    /// The purchase with its journal cut to the owner and transfer count: enough to show it, not
    /// enough to apply another fact to it.
    public var withoutHistory: Self { replacingJournal(journal.ownerAndTransfers) }
}

extension PurchaseJournal {
    /// Owner and transfer count only: no facts, emitted ids or held events.
    var ownerAndTransfers: PurchaseJournal {
        var light = PurchaseJournal(ownerAppUserId: ownerAppUserId)
        light.transferCount = transferCount
        return light
    }
}

extension SubscriptionState: HasPurchaseJournal {
    public func replacingJournal(_ journal: PurchaseJournal) -> SubscriptionState {
        var copy = self
        copy.journal = journal
        return copy
    }
}

extension OneTimePurchase: HasPurchaseJournal {
    public func replacingJournal(_ journal: PurchaseJournal) -> OneTimePurchase {
        var copy = self
        copy.journal = journal
        return copy
    }
}

// MARK: - Facts stored apart (older ones are rows of their own)

extension PurchaseJournal {
    /// The journal with `facts` (in any order) as its history, sorted into fold order.
    public func replacingFacts(_ facts: [PurchaseFact]) -> PurchaseJournal {
        var copy = self
        copy.facts = facts.sorted(by: PurchaseFact.isFoldedBefore)
        return copy
    }
}
