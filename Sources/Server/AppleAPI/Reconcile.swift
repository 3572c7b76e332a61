import AppStore
import AppStoreServerAPI
import Foundation
import JSON
import Storage
import Subscriptions
import Threads

/// Brings stored subscriptions in line with what Apple says of them: for each active or
/// recently lapsed subscription, Get All Subscription Statuses; where Apple's latest transaction
/// or renewal info differs from what is stored, the answer is applied through the reducer (which
/// emits the events that were missed) and kept for `replay`. Never applied when Apple's latest
/// transaction is older than the stored one: state is not rolled back.
package enum Reconcile {
    /// One difference between the stored state and Apple's answer.
    package struct Drift: Equatable, Sendable, CustomStringConvertible {
        package var field: String
        package var stored: String
        package var apple: String
        package var description: String { "\(field) \(stored) → \(apple)" }
    }

    /// What became of one subscription.
    package struct Outcome: Sendable {
        package var originalTransactionId: String
        package var drifts: [Drift]
        /// Applied, or why not.
        package var applied: Bool
        package var note: String?

        /// As the server answers it to a command beside it.
        package var json: JSONValue {
            .object([
                "original_transaction_id": .string(originalTransactionId),
                "drifts": .array(
                    drifts.map {
                        .object(["field": .string($0.field), "stored": .string($0.stored), "apple": .string($0.apple)])
                    }),
                "applied": .bool(applied), "note": note.map(JSONValue.string) ?? .null,
            ])
        }

        package init(originalTransactionId: String, drifts: [Drift], applied: Bool, note: String?) {
            self.originalTransactionId = originalTransactionId
            self.drifts = drifts
            self.applied = applied
            self.note = note
        }

        /// From the server's answer; nil when it is not one.
        package init?(json: JSONValue) {
            guard let id = json["original_transaction_id"]?.stringValue, let drifts = json["drifts"]?.arrayValue,
                case .bool(let applied)? = json["applied"]
            else { return nil }
            let parsed = drifts.compactMap { drift -> Drift? in
                guard let field = drift["field"]?.stringValue, let stored = drift["stored"]?.stringValue,
                    let apple = drift["apple"]?.stringValue
                else { return nil }
                return Drift(field: field, stored: stored, apple: apple)
            }
            guard parsed.count == drifts.count else { return nil }
            self.init(originalTransactionId: id, drifts: parsed, applied: applied, note: json["note"]?.stringValue)
        }
    }

    /// The environment to ask Apple in about `state`: its current transaction's.
    package static func environment(of state: SubscriptionState) -> AppStoreEnvironment {
        AppStoreEnvironment(rawValue: state.currentTransaction?.environment?.rawValue ?? "Production")
    }

    /// Subscriptions lapsed longer ago than this are left alone: Apple's billing retry, which
    /// can still recover one, lasts up to 60 days from the end of its access.
    package static let lapsedWindowMs: Int64 = 60 * 86_400_000

    /// The original transaction ids of the app's subscriptions with access now or within
    /// `lapsedWindowMs`, with their stored state.
    package static func candidates(app: AppConfig, store: some ReadsStore, nowMs: Int64, only: String? = nil) throws
        -> [SubscriptionState]
    {
        // One subscription is read by its key; all of them by a scan of the app's subscriptions.
        let ids = try store.read { (rows) throws(StoreError) in
            try LedgerRows.subscriptionIds(appId: app.id, only: only, from: rows)
        }
        var states: [SubscriptionState] = []
        for id in ids {
            if let only, id != only { continue }
            let ledger = try store.read { (rows) throws(StoreError) in
                try StoreError.decoding {
                    try LedgerRows.slice(
                        for: .linked(.subscription(originalTransactionId: id), appUserId: ""), app: app.ledger, from: rows
                    ).ledger
                }
            }
            guard let state = ledger.subscriptions[id] else { continue }
            if let ends = state.accessEndsAtMs, ends < nowMs - lapsedWindowMs { continue }
            states.append(state)
        }
        return states
    }

    /// How Apple's answer differs from `state`.
    package static func drifts(
        _ state: SubscriptionState, transaction: JWSTransactionDecodedPayload, renewalInfo: JWSRenewalInfoDecodedPayload?
    ) -> [Drift] {
        var drifts: [Drift] = []
        func compare(_ field: String, _ stored: String?, _ apple: String?) {
            guard let apple, stored != apple else { return }
            drifts.append(Drift(field: field, stored: stored ?? "none", apple: apple))
        }
        let current = state.currentTransaction
        compare("transactionId", current?.transactionId, transaction.transactionId)
        compare("productId", current?.productId, transaction.productId)
        compare("expiresDate", current?.expiresDate.map(UnixTime.iso8601), transaction.expiresDate.map(UnixTime.iso8601))
        // A refund Apple reversed shows as no revocationDate: "none" differs from a stored one.
        if current?.revocationDate != nil || transaction.revocationDate != nil {
            compare(
                "revocationDate", current?.revocationDate.map(UnixTime.iso8601),
                transaction.revocationDate.map(UnixTime.iso8601) ?? "none")
        }
        if let renewal = renewalInfo {
            compare(
                "autoRenew", state.autoRenewEnabled.map { $0 ? "on" : "off" },
                renewal.autoRenewStatus.map { $0 == .on ? "on" : "off" })
            compare("autoRenewProductId", state.autoRenewProductId, renewal.autoRenewProductId)
            compare(
                "billingRetry", state.billingIssue.map { $0.isInBillingRetry ? "yes" : "no" } ?? "no",
                renewal.isInBillingRetryPeriod.map { $0 ? "yes" : "no" })
            // Grace (status 4) and billing retry without it (status 3) both say billing retry:
            // a grace period missed, or moved, shows only here.
            compare(
                "gracePeriodExpiresDate", state.billingIssue?.gracePeriodExpiresDateMs.map(UnixTime.iso8601),
                renewal.gracePeriodExpiresDate.map(UnixTime.iso8601))
        }
        return drifts
    }

    /// Asks Apple about `state`'s subscription and applies the answer if it differs. When
    /// Apple's latest transaction is a later one than the stored current one, the transactions
    /// between them (Transaction History after the stored one's purchase date) are applied
    /// first, in purchase order, as an import applies a history: each missed renewal or plan
    /// change then gets its own event, not one for all.
    package static func reconcile(
        _ state: SubscriptionState, app: AppConfig, client: AppStoreServerAPIClient, store: Store, nowMs: Int64
    ) throws -> Outcome {
        let id = state.originalTransactionId
        let answers: [VerifiedSubscriptionStatus]
        do {
            answers = try client.subscriptionStatuses(id)
        } catch {
            guard error.isUnknownTransaction else { throw error }
            // Apple's answer, not a failure to get one: the subscription is unknown to this
            // environment (a Sandbox purchase Apple cleared, a local test).
            return Outcome(originalTransactionId: id, drifts: [], applied: false, note: "Apple knows no such transaction")
        }
        guard let answer = answers.first(where: { $0.originalTransactionId == id }),
            let transaction = answer.transaction?.payload, let signed = answer.signedTransactionInfo
        else { return Outcome(originalTransactionId: id, drifts: [], applied: false, note: "Apple lists no such subscription") }
        let renewal = answer.renewalInfo?.payload
        let drifts = drifts(state, transaction: transaction, renewalInfo: renewal)
        guard !drifts.isEmpty else { return Outcome(originalTransactionId: id, drifts: [], applied: false, note: nil) }
        if let stored = state.currentTransaction?.purchaseDate, let apple = transaction.purchaseDate, apple < stored {
            return Outcome(
                originalTransactionId: id, drifts: drifts, applied: false,
                note: "Apple's latest transaction is older than the stored one: not rolled back")
        }
        let missed = try missedTransactions(of: state, before: transaction, client: client)
        let current = AppleAnswerRows.Answer(
            signedTransaction: signed, transaction: transaction, signedRenewalInfo: answer.signedRenewalInfo,
            renewalInfo: renewal)
        try store.write { rows in
            for answer in missed + [current] {
                try LedgerInputs.keepAndApply(.appleAnswer(answer, appUserId: nil), app: app.ledger, atMs: nowMs, in: rows)
            }
        }
        return Outcome(originalTransactionId: id, drifts: drifts, applied: true, note: nil)
    }

    /// The subscription's transactions Apple signed after the stored current one and before
    /// `latest`, by purchase date; none when `latest` is the stored one or nothing is stored.
    static func missedTransactions(
        of state: SubscriptionState, before latest: JWSTransactionDecodedPayload, client: AppStoreServerAPIClient
    ) throws -> [AppleAnswerRows.Answer] {
        let id = state.originalTransactionId
        guard let stored = state.currentTransaction, let from = stored.purchaseDate,
            latest.transactionId != stored.transactionId
        else { return [] }
        let group = latest.subscriptionGroupIdentifier ?? stored.subscriptionGroupIdentifier
        return try Import.historyAnswers(id, group: group, from: client, purchasedAfter: from).filter {
            $0.transaction.transactionId != latest.transactionId && $0.transaction.transactionId != stored.transactionId
        }
    }
}
