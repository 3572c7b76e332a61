import AppStore
import Foundation
import Subscriptions

/// Applying reducer inputs to stored state: the one write path of ingest, posted transactions,
/// Apple's answers, customer actions, the scheduler and replay.
public enum LedgerInputs {
    /// Loads the slice `input` touches, applies it at `atMs`, and writes state and effects back.
    ///
    /// The held events a purchase keeps apart are read with the slice when the input may
    /// claim the purchase (`Ledger.mayClaimAPurchase(by:)`, the rule the reducer claims by), so
    /// that the claim releases all of them, in order, and the reducer runs once.
    ///
    /// - Parameters:
    ///   - deliver: whether new events get a pending webhook delivery (when the app has a
    ///     webhook). Replay passes false: rebuilding state never sends history again.
    ///   - cache: what the store keeps decoded, so a purchase whose row is as it was written is not
    ///     decoded again, and a refold decodes only facts it has not seen.
    ///   - firstRound: the answers to the slice's first reads, read ahead
    ///     (`LedgerRows.slice(firstRound:)`); nil to read them now.
    /// - Returns: the reducer's effects, and the rows it may have written, by key.
    @discardableResult
    public static func apply(
        _ input: Ledger.Input, app: LedgerApp, atMs: Int64, deliver: Bool = true, cache: LedgerCache? = nil,
        firstRound: [[[SQLValue]]]? = nil, in transaction: WriteTransaction
    ) throws -> AppliedInput {
        let reduced = try reduce(input, app: app, atMs: atMs, cache: cache, firstRound: firstRound, in: transaction)
        return try write(reduced, deliver: deliver, cache: cache, in: transaction)
    }

    /// An input applied to its slice in memory, not written yet (`write`).
    struct Reduction {
        var input: Ledger.Input
        var app: LedgerApp
        var atMs: Int64
        var before: Ledger
        var facts: [String: PurchaseFactRows.Loaded]
        var after: Ledger
        var effects: [Ledger.Effect]

        /// Whether writing it would change anything: the state, or an effect to carry out.
        var changesAnything: Bool { !effects.isEmpty || after != before }
    }

    /// Loads the slice `input` touches and applies it at `atMs`, in memory.
    static func reduce(
        _ input: Ledger.Input, app: LedgerApp, atMs: Int64, cache: LedgerCache? = nil, firstRound: [[[SQLValue]]]? = nil,
        in transaction: WriteTransaction
    ) throws -> Reduction {
        var app = app
        app.configuration.anonymousIds = transaction.anonymousIds
        WriteProfile.countInput()
        let sliced = try WriteProfile.measure(.slice) {
            try LedgerRows.slice(
                for: input, app: app, restoringHeldEvents: true, cache: cache, firstRound: firstRound, from: transaction)
        }
        var ledger = sliced.ledger
        let now = Date(timeIntervalSince1970: Double(atMs) / 1000)
        let effects = WriteProfile.measure(.reduce) { ledger.apply(input, at: now) }
        return Reduction(
            input: input, app: app, atMs: atMs, before: sliced.ledger, facts: sliced.facts, after: ledger, effects: effects)
    }

    /// Writes a reduced input's state and effects back.
    static func write(_ reduced: Reduction, deliver: Bool, cache: LedgerCache?, in transaction: WriteTransaction) throws
        -> AppliedInput
    {
        let (app, atMs, effects) = (reduced.app, reduced.atMs, reduced.effects)
        let removed = reduced.before.customers.keys.filter { reduced.after.customers[$0] == nil }
        let unpriced = effects.count {
            guard case .emit(let event) = $0 else { return false }
            return event.price == nil && event.currency != nil && event.priceInPurchasedCurrency != nil
        }
        try LedgerRows.save(
            reduced.after, facts: reduced.facts, effects: effects, appId: app.id, at: atMs,
            webhooks: deliver ? app.webhooks : [], removedCustomers: removed, storedCustomers: reduced.before.customers,
            cache: cache, in: transaction)
        try WriteProfile.measure(.other) {
            try CommerceRequestRows.complete(after: reduced.input, appId: app.id, atMs: atMs, in: transaction)
        }
        if deliver, unpriced > 0 { app.countUnpricedEvents?(unpriced) }
        return AppliedInput(
            effects: effects, touch: LedgerTouch(input: reduced.input, before: reduced.before, after: reduced.after))
    }

    /// Records that an input was applied, in order, so `revenuedot replay` can apply it again.
    public static func log(
        kind: AppliedInputKind, ref: String, appId: String, atMs: Int64, in transaction: WriteTransaction
    ) throws {
        _ = try WriteProfile.measure(.log) {
            try transaction.write(
                "INSERT INTO applied_inputs (app_id, kind, ref, at) VALUES (?, ?, ?, ?)",
                [.text(appId), .text(kind.rawValue), .text(ref), .integer(atMs)])
        }
    }
}

/// Firing one timer, shared by the scheduler and replay: the timer row goes, the reducer runs
/// at `atMs`, and whatever it schedules next takes the row's place.
public enum TimerFiring {
    @discardableResult
    public static func fire(
        _ timer: ExpirationTimer, app: LedgerApp, atMs: Int64, deliver: Bool, cache: LedgerCache? = nil,
        in transaction: WriteTransaction
    ) throws -> AppliedInput {
        try PendingTimers.remove(PendingTimers.Due(appId: app.id, id: timer.id), in: transaction)
        return try LedgerInputs.apply(
            .timerFired(timer), app: app, atMs: atMs, deliver: deliver, cache: cache, in: transaction)
    }
}
