import Subscriptions

/// What applying one input to stored state did: the reducer's effects, in order, and the rows
/// they may have written (`LedgerTouch`).
public struct AppliedInput: Sendable {
    public let effects: [Ledger.Effect]
    public let touch: LedgerTouch

    /// The owner the app's `restoreBehavior` kept the purchase with, when the input asked to
    /// link it to another customer (`Ledger.Effect.linkRefused`); nil when it was linked.
    public var linkKeptWith: String? {
        for case .linkRefused(_, let owner) in effects { return owner }
        return nil
    }
}
