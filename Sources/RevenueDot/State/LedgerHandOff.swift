import AppStore
import Foundation
import Storage
import Subscriptions

/// The single place a stored notification reaches the subscription logic: inside the storage
/// transaction that holds it, the reducer applies it to the purchase's slice of state, and the
/// new state, its events and its timers commit together with the notification.
struct LedgerHandOff: NotificationHandOff {
    let apps: [String: AppConfig]
    /// What the store keeps decoded (`LedgerCache`), shared with the other inputs applied to it.
    let cache: LedgerCache?

    init(config: RevenueDotConfig, cache: LedgerCache? = nil) {
        apps = Dictionary(uniqueKeysWithValues: config.apps.map { ($0.id, $0) })
        self.cache = cache
    }

    func handOff(_ record: NotificationRecord, in transaction: WriteTransaction) throws -> NotificationState {
        // Held notifications (another bundle or environment) wait for a configuration fix.
        guard record.state == .received, let app = apps[record.appId] else { return record.state }
        let facts = try record.handOffContext as? VerifiedNotificationFacts ?? Self.facts(of: record)
        try LedgerInputs.apply(
            .notificationReceived(facts), app: app, atMs: record.receivedAt, cache: cache, in: transaction)
        try LedgerInputs.log(
            kind: "notification", ref: record.notificationUUID, app: app, atMs: record.receivedAt, in: transaction)
        return .applied
    }

    /// The reducer's view of a stored notification, from its row and decoded snapshots.
    static func facts(of record: NotificationRecord) throws -> VerifiedNotificationFacts {
        let transaction = try record.transaction.map { try LedgerRows.decode(JWSTransactionDecodedPayload.self, $0.json) }
        let renewal = try record.renewalInfo.map { try LedgerRows.decode(JWSRenewalInfoDecodedPayload.self, $0.json) }
        return VerifiedNotificationFacts(
            notificationUUID: record.notificationUUID,
            notificationType: NotificationTypeV2(rawValue: record.notificationType),
            subtype: record.subtype.map { Subtype(rawValue: $0) },
            signedDateMs: record.signedDate ?? transaction?.signedDate ?? renewal?.signedDate ?? 0,
            environment: record.environment.map { AppStoreEnvironment(rawValue: $0) },
            transaction: transaction, renewalInfo: renewal)
    }
}

/// Applying reducer inputs to stored state, shared by ingest, posted transactions and replay.
enum LedgerInputs {
    /// Loads the slice `input` touches, applies it at `atMs`, and writes state and effects back.
    ///
    /// Held events a purchase keeps apart are read only when the input claims the purchase: the
    /// input is applied, and if it gave such a purchase its owner, applied again (the reducer is
    /// pure) on a slice with them restored, so that the claim releases all of them, in order.
    ///
    /// - Parameters:
    ///   - deliver: whether new events get a pending webhook delivery (when the app has a
    ///     webhook). Replay passes false: rebuilding state never sends history again.
    ///   - cache: what the store keeps decoded, so a purchase whose row is as it was written is not
    ///     decoded again, and a refold decodes only facts it has not seen.
    static func apply(
        _ input: Ledger.Input, app: AppConfig, atMs: Int64, deliver: Bool = true, cache: LedgerCache? = nil,
        in transaction: WriteTransaction
    ) throws {
        let now = Date(timeIntervalSince1970: Double(atMs) / 1000)
        var sliced = try LedgerRows.slice(for: input, app: app, cache: cache, from: transaction)
        var ledger = sliced.ledger
        var effects = ledger.apply(input, at: now)
        if LedgerRows.claimsHeldEventsKeptApart(before: sliced.ledger, after: ledger) {
            sliced = try LedgerRows.slice(
                for: input, app: app, restoringHeldEvents: true, cache: cache, from: transaction)
            ledger = sliced.ledger
            effects = ledger.apply(input, at: now)
        }
        let removed = sliced.ledger.customers.keys.filter { ledger.customers[$0] == nil }
        let unpriced = effects.count {
            guard case .emit(let event) = $0 else { return false }
            return event.price == nil && event.currency != nil && event.priceInPurchasedCurrency != nil
        }
        if deliver, unpriced > 0 { app.exchangeRates?.countUnpriced(unpriced) }
        try LedgerRows.save(
            ledger, facts: sliced.facts, effects: effects, appId: app.id, at: atMs, webhooks: deliver ? app.webhooks : [],
            removedCustomers: removed, cache: cache, in: transaction)
        try CommerceTracking.complete(after: input, app: app, atMs: atMs, in: transaction)
    }

    /// Records that an input was applied, in order, so `revenuedot replay` can apply it again.
    static func log(kind: String, ref: String, app: AppConfig, atMs: Int64, in transaction: WriteTransaction) throws {
        try transaction.execute(
            "INSERT INTO applied_inputs (app_id, kind, ref, at) VALUES (?, ?, ?, ?)",
            [.text(app.id), .text(kind), .text(ref), .integer(atMs)])
    }
}
