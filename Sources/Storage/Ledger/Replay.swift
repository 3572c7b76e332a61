import AppStore
import Foundation
import JSON
import Subscriptions
import Threads

/// Rebuilds every derived table (purchases, their facts, held events and views, customers,
/// unattached facts, events, timers) from the stored raw inputs, applied again in the order they
/// were first applied, at the times they were first applied: the result equals the live state
/// byte for byte, event ids included.
/// Rows last written by an older build (a history holding every fact or held event, a state
/// holding every period whole) come back in today's form, which answers the same.
/// Webhook deliveries are not derived state: replay keeps them and schedules none.
public enum Replay {
    /// The tables replay rebuilds.
    public static let derivedTables = [
        "purchases", "purchase_facts", "held_events", "purchase_views", "customers", "customer_aliases",
        "unattached_facts", "events", "timers",
    ]

    /// Replays every applied input in one write transaction; returns how many were applied.
    ///
    /// - Parameters:
    ///   - apps: every app an input was applied for, by id.
    ///   - verifiers: each app's signature-only verifier, which checks a stored signed payload
    ///     again (signature and chain, judged at its `signedDate`) before it is applied again.
    public static func run(
        apps: [String: LedgerApp], verifiers: [String: SignedDataVerifier], store: Store
    ) throws -> Int {
        try replay(apps: apps, verifiers: verifiers, store: store).inputs
    }

    /// What a replay did: the inputs applied again, and how the events compare with those
    /// before it (a replay under this build's rules of a database an earlier build made may
    /// make some differently, some new, some no more).
    public struct Replayed: Sendable, Equatable {
        public var inputs: Int
        /// Events made again byte for byte.
        public var eventsAsBefore = 0
        /// Events made again with other contents (an event rule CHANGELOG lists as Changed).
        public var eventsChanged = 0
        /// Events made now that were not before: added, never sent.
        public var eventsNew = 0
        /// Events made before and no more: gone from `/v1/events`.
        public var eventsGone = 0
    }

    /// `run`, saying what it did.
    public static func replay(
        apps: [String: LedgerApp], verifiers: [String: SignedDataVerifier], store: Store
    ) throws -> Replayed {
        try store.writeReturning { transaction in
            var applied = 0
            let inputs = try transaction.query("SELECT app_id, kind, ref, at FROM applied_inputs ORDER BY seq")
            let positions = try transaction.query("SELECT id, position, json, customer, sequence, app_id FROM events")
            for table in derivedTables { try transaction.execute("DELETE FROM \(table)") }
            // A purchase touched by many inputs is decoded once, not once per input.
            let cache = LedgerCache()
            for row in inputs {
                guard let appId = row[0].textValue, let kind = row[1].textValue, let ref = row[2].textValue,
                    let at = row[3].integerValue
                else { throw ReplayError("an applied input row is incomplete: \(row.map { $0.textValue ?? "null" })") }
                guard let app = apps[appId] else {
                    throw ReplayError(
                        "\(kind) \(ref) was applied for app \"\(appId)\", which the configuration no longer has: add it back to replay"
                    )
                }
                guard let known = AppliedInputKind(rawValue: kind) else {
                    throw ReplayError(
                        "unknown applied input kind \"\(kind)\" (\(ref)): this build replays only "
                            + AppliedInputKind.allCases.map(\.rawValue).joined(separator: ", "))
                }
                let input: Ledger.Input
                switch known {
                case .notification: input = .notificationReceived(try facts(uuid: ref, in: transaction))
                case .postedTransaction:
                    guard let verifier = verifiers[appId] else { throw ReplayError("no verifier for \(appId)") }
                    input = try postedTransaction(id: ref, verifier: verifier, in: transaction)
                case .appleAnswer:
                    guard let verifier = verifiers[appId] else { throw ReplayError("no verifier for \(appId)") }
                    input = try AppleAnswerRows.input(id: ref, verifier: verifier, in: transaction)
                case .customerAction:
                    input = try CustomerActionRows.input(id: ref, in: transaction)
                case .timer:
                    try TimerFiring.fire(
                        try LedgerRows.decode(ExpirationTimer.self, ref), app: app, atMs: at, deliver: false, cache: cache,
                        in: transaction)
                    applied += 1
                    continue
                }
                try LedgerInputs.apply(input, app: app, atMs: at, deliver: false, cache: cache, in: transaction)
                applied += 1
            }
            try keepPositions(positions, in: transaction)
            try keepConfiguredFields(positions, in: transaction)
            try keepSequences(positions, in: transaction)
            var replayed = try compare(positions, with: transaction.query("SELECT id, json FROM events"))
            replayed.inputs = applied
            // A replay under changed code or config may not make every event again: a delivery
            // left without its event can never be sent, so it becomes a dead letter that says why.
            try transaction.write(
                """
                UPDATE deliveries SET status = 'dead', last_error = 'the event no longer exists after revenuedot replay'
                WHERE status = 'pending' AND event_id NOT IN (SELECT id FROM events)
                """)
            return replayed
        }
    }

    /// How the events after the replay (`[id, json]` rows) compare with `old` (`[id, _, json, ...]`).
    private static func compare(_ old: [[SQLValue]], with new: [[SQLValue]]) -> Replayed {
        var before: [String: String] = [:]
        for row in old { if let id = row[0].textValue { before[id] = row[2].textValue ?? "" } }
        var result = Replayed(inputs: 0)
        for row in new {
            guard let id = row[0].textValue else { continue }
            switch before.removeValue(forKey: id) {
            case nil: result.eventsNew += 1
            case row[1].textValue ?? "": result.eventsAsBefore += 1
            default: result.eventsChanged += 1
            }
        }
        result.eventsGone = before.count
        return result
    }

    /// Gives every event made again the `position` it had, so `/v1/events` consumers neither miss
    /// nor repeat one; events new to this replay follow after the highest position given before,
    /// in order, and so do later events when the newest are made no more (the floor).
    private static func keepPositions(_ old: [[SQLValue]], in transaction: WriteTransaction) throws {
        guard !old.isEmpty else { return }
        try transaction.write("UPDATE events SET position = -position")
        var highest = try transaction.query(EventPositions.floorSQL).first?.first?.integerValue ?? 0
        for row in old {
            guard let id = row[0].textValue, let position = row[1].integerValue else { continue }
            highest = max(highest, position)
            try transaction.write("UPDATE events SET position = ? WHERE id = ?", [.integer(position), .text(id)])
        }
        try transaction.write(EventPositions.raiseFloorSQL, [.integer(highest)])
        let fresh = try transaction.query("SELECT id FROM events WHERE position < 0 ORDER BY position DESC")
        for (offset, row) in fresh.enumerated() {
            let (position, overflow) = highest.addingReportingOverflow(Int64(offset) + 1)
            guard !overflow else { throw StoreError(.corrupt, "events.position \(highest) leaves no room for new events") }
            try transaction.write("UPDATE events SET position = ? WHERE id = ?", [.integer(position), row[0]])
        }
    }

    /// Gives every event made again what the configuration gave it when it was made: its USD
    /// `price` (the exchange rates of `exchangeRatesFile` change; that is what they are for), its
    /// `entitlement_ids` (`entitlements` and `sandboxAccess` may have changed since), and its
    /// commission and take-home shares (`smallBusinessProgram`). An event
    /// already sent, or read from `/v1/events`, must not change under its id; the state replay
    /// rebuilds follows today's configuration. Events new to this replay take today's.
    private static func keepConfiguredFields(_ old: [[SQLValue]], in transaction: WriteTransaction) throws {
        for row in old {
            guard let id = row[0].textValue, let oldJSON = row[2].textValue,
                let newJSON = try transaction.query("SELECT json FROM events WHERE id = ?", [.text(id)]).first?.first?
                    .textValue, newJSON != oldJSON
            else { continue }
            let before = try Event(json: JSONValue(parsing: Data(oldJSON.utf8)))
            var after = try Event(json: JSONValue(parsing: Data(newJSON.utf8)))
            let kept = after
            if before.currency == after.currency { after.price = before.price }
            after.entitlementIds = before.entitlementIds
            after.commissionPercentage = before.commissionPercentage
            after.takehomePercentage = before.takehomePercentage
            guard after != kept else { continue }
            try transaction.write(
                "UPDATE events SET json = ? WHERE id = ?", [.text(try LedgerRows.encode(after)), .text(id)])
        }
    }

    private static func facts(uuid: String, in transaction: WriteTransaction) throws -> VerifiedNotificationFacts {
        let rows = try transaction.query(
            """
            SELECT notification_type, subtype, environment, signed_date, transaction_id, transaction_json, renewal_json,
                received_at, app_id
            FROM notifications WHERE notification_uuid = ?
            """, [.text(uuid)])
        guard let row = rows.first, let type = row[0].textValue, let appId = row[8].textValue else {
            throw ReplayError("applied notification \(uuid) is not stored")
        }
        let record = NotificationRecord(
            notificationUUID: uuid, appId: appId, notificationType: type, subtype: row[1].textValue,
            environment: row[2].textValue, signedDate: row[3].integerValue, transactionId: row[4].textValue,
            // The reducer reads the decoded snapshots, never the raw payload.
            receivedAt: row[7].integerValue ?? 0, signedPayload: "",
            transaction: row[5].textValue.map { TransactionSnapshot(transactionId: row[4].textValue ?? "", json: $0) },
            renewalInfo: row[6].textValue.map { RenewalSnapshot(json: $0) })
        return try record.verifiedFacts()
    }

    /// A posted StoreKit transaction, verified again (signature and chain, judged at its signedDate).
    private static func postedTransaction(id: String, verifier: SignedDataVerifier, in transaction: WriteTransaction) throws
        -> Ledger.Input
    {
        guard let number = Int64(id),
            let row = try transaction.query(
                "SELECT app_user_id, signed_transaction, received_at, presented_offering_id FROM posted_transactions WHERE id = ?",
                [.integer(number)]
            ).first,
            let user = row[0].textValue, let signed = row[1].textValue
        else { throw ReplayError("applied posted transaction \(id) is not stored") }
        let at = Date(timeIntervalSince1970: Double(row[2].integerValue ?? 0) / 1000)
        let payload = try verifier.verifyTransaction(signed, now: at).payload
        return .transactionPosted(payload, appUserId: user, presentedOfferingId: row[3].textValue)
    }
}

public struct ReplayError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
