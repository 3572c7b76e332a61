/// A purchase whose state is the fold of its facts in signed-date order.
///
/// This is how out-of-order delivery is handled: a fact is inserted at its place in the history
/// (by `signedDate`), and the state is the fold of the whole history. A fact newer than all
/// others is simply applied (the common case); an older one makes the state refold, so it lands
/// *before* the newer facts, which then overwrite whatever they also carry. The state therefore
/// never rolls back to an older snapshot, while what only the older fact carries (the refund of
/// an older transaction, the start of a billing-issue streak) is kept. Because the history is a
/// sorted set, every delivery order of the same facts gives the same state.
protocol FactFolding {
    var journal: PurchaseJournal { get set }

    /// The same purchase with no fact folded in, keeping `journal`.
    func unfolded() -> Self

    /// Applies one fact: the transition table.
    mutating func absorb(_ fact: PurchaseFact)

    /// The events a fact causes, given the state just before and just after it in fold order.
    ///
    /// Ids must derive from the cause only; the caller drops any already produced.
    func events(for fact: PurchaseFact, before: Self, after: Self) -> [Event]
}

extension FactFolding {
    /// Receives a fact: nil for a duplicate (same id), else the new events it causes.
    ///
    /// A duplicate changes nothing at all. A new fact is kept in the history even when its type
    /// is unknown (the transition then changes nothing), so a later version can refold it.
    mutating func receive(_ fact: PurchaseFact) -> [Event]? {
        if journal.hasFact(id: fact.id) { return nil }
        let index = journal.insertionIndex(of: fact)
        let before: Self
        let after: Self
        if index == journal.facts.count {
            before = self
            absorb(fact)
            after = self
        } else {
            var running = unfolded()
            for earlier in journal.facts[..<index] { running.absorb(earlier) }
            before = running
            running.absorb(fact)
            after = running
            for later in journal.facts[index...] { running.absorb(later) }
            self = running
        }
        _ = journal.insert(fact)
        return events(for: fact, before: before, after: after).filter { journal.recordEmission($0.id) }
    }

    /// The state refolded from its history: equal to `self` whenever the fold is sound.
    func refolded() -> Self {
        var running = unfolded()
        for fact in journal.facts { running.absorb(fact) }
        return running
    }
}
