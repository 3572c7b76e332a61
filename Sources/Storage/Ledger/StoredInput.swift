import AppStore
import Foundation
import Subscriptions

/// An input the store keeps in its raw form and applies to state: every input but a
/// notification, which arrives through `Store.store(_:)` and its hand-off.
public enum StoredInput: Sendable {
    /// A StoreKit transaction an app posted for a customer, verified, with its JWS, its content
    /// digest (`PostedTransactionRows.contentDigest`) and the offering the app says it was sold from.
    case postedTransaction(
        JWSTransactionDecodedPayload, signed: String, appUserId: String, digest: String, presentedOfferingId: String? = nil)
    /// One of Apple's answers about a purchase, for a customer when the caller knows one.
    case appleAnswer(AppleAnswerRows.Answer, appUserId: String?)
    /// What the API did to a customer.
    case customerAction(CustomerAction)
    /// A timer found due (`PendingTimers.due`); read again here, since a notification may have
    /// moved or removed it meanwhile.
    case dueTimer(PendingTimers.Due)
}

extension LedgerInputs {
    /// The one write path of a `StoredInput`, inside `transaction`: keeps its raw form where
    /// replay finds it (a timer needs none), applies it to state (`apply`), and logs it in
    /// `applied_inputs`. Returns what applying it did, or nil when there was nothing to apply: a
    /// post repeating the transaction's latest one, a customer action that changes nothing, or a
    /// timer no longer due.
    ///
    /// - Parameter deliver: whether new events get pending deliveries (an import may say no).
    @discardableResult
    public static func keepAndApply(
        _ input: StoredInput, app: LedgerApp, atMs: Int64, deliver: Bool = true, cache: LedgerCache? = nil,
        in transaction: WriteTransaction
    ) throws -> AppliedInput? {
        let (kind, ref, applied): (AppliedInputKind, String, Ledger.Input)
        // Reduced already where keeping it depended on what it does.
        var reduced: Reduction?
        switch input {
        case .postedTransaction(let payload, let signed, let appUserId, let digest, let offering):
            let posted = Ledger.Input.transactionPosted(payload, appUserId: appUserId, presentedOfferingId: offering)
            let transactionId = payload.transactionId ?? ""
            switch try PostedTransactionRows.repetition(
                app: app.id, appUserId: appUserId, transactionId: transactionId,
                purchaseKey: posted.purchaseKey.map(LedgerRows.key), digest: digest, presentedOfferingId: offering,
                in: transaction)
            {
            case .ownersAgain: return nil
            case .refusedAgain:
                let effects = try preview(posted, app: app, anonymousIds: transaction.anonymousIds, atMs: atMs, from: transaction)
                if effects.contains(where: \.isLinkRefusal) { return nil }
            case .new: break
            }
            let id = try PostedTransactionRows.insert(
                app: app.id, appUserId: appUserId, transactionId: transactionId, signed: signed, digest: digest,
                presentedOfferingId: offering, atMs: atMs, in: transaction)
            (kind, ref, applied) = (.postedTransaction, String(id), posted)
        case .appleAnswer(let answer, let appUserId):
            let id = try AppleAnswerRows.insert(answer, appUserId: appUserId, appId: app.id, atMs: atMs, in: transaction)
            (kind, ref, applied) = (.appleAnswer, String(id), answer.input(appUserId: appUserId))
        case .customerAction(let action):
            // Clients repeat actions that change nothing (a log-in or alias of ids already one
            // customer, the AppTransaction the SDK posts at every launch): not kept, or each would
            // be a row for good, and applied again by every replay.
            let made = try reduce(.customerAction(action), app: app, atMs: atMs, cache: cache, in: transaction)
            guard made.changesAnything else { return nil }
            let id = try CustomerActionRows.insert(action, appId: app.id, atMs: atMs, in: transaction)
            (kind, ref, applied) = (.customerAction, String(id), .customerAction(action))
            reduced = made
        case .dueTimer(let due):
            guard let timer = try PendingTimers.load(due, atMs: atMs, in: transaction) else { return nil }
            let fired = try TimerFiring.fire(timer, app: app, atMs: atMs, deliver: deliver, cache: cache, in: transaction)
            try log(kind: .timer, ref: try LedgerRows.encode(timer), appId: app.id, atMs: atMs, in: transaction)
            return fired
        }
        let done = try write(
            reduced ?? reduce(applied, app: app, atMs: atMs, cache: cache, in: transaction), deliver: deliver, cache: cache,
            in: transaction)
        try log(kind: kind, ref: ref, appId: app.id, atMs: atMs, in: transaction)
        return done
    }
}
