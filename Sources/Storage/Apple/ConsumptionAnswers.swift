import AppStore
import Subscriptions
import Synchronization

/// An answer to one of Apple's consumption requests (a CONSUMPTION_REQUEST notification): what
/// RevenueDot sent, or why not, and its attempts.
public struct ConsumptionAnswer: Sendable, Equatable {
    public enum Status: String, Sendable {
        /// Not sent yet, or to be sent again at `nextAttemptAtMs`.
        case pending
        /// Apple took it.
        case sent
        /// Apple refused it for good (a 4xx it does not call retryable).
        case failed
        /// The 12 hours Apple allows ran out before Apple took it.
        case expired
        /// Not sent by choice (no customer consent configured): Apple decides without it.
        case skipped
    }

    public var notificationUUID: String
    public var appId: String
    public var transactionId: String
    public var environment: String
    /// The request's `signedDate`, UNIX ms: Apple's 12 hours run from it.
    public var requestedAtMs: Int64
    public var status: Status
    public var attempts: Int
    public var nextAttemptAtMs: Int64
    /// The consumption information sent (or to send), JSON.
    public var requestJSON: String?
    public var lastError: String?
    public var answeredAtMs: Int64?
}

/// The SQL of `consumption_answers`: every query is here.
enum ConsumptionAnswerSQL {
    static let columns =
        "notification_uuid, app_id, transaction_id, environment, requested_at, status, attempts, next_attempt_at, request_json, last_error, answered_at"

    static func decode(_ row: [SQLValue]) -> ConsumptionAnswer? {
        guard row.count == 11, let uuid = row[0].textValue, let app = row[1].textValue, let transaction = row[2].textValue,
            let environment = row[3].textValue, let requested = row[4].integerValue,
            let status = row[5].textValue.flatMap(ConsumptionAnswer.Status.init(rawValue:)),
            let attempts = row[6].integerValue, let next = row[7].integerValue
        else { return nil }
        return ConsumptionAnswer(
            notificationUUID: uuid, appId: app, transactionId: transaction, environment: environment,
            requestedAtMs: requested, status: status, attempts: Int(min(max(attempts, 0), Int64(Int32.max))),
            nextAttemptAtMs: next, requestJSON: row[8].textValue, lastError: row[9].textValue,
            answeredAtMs: row[10].integerValue)
    }
}

extension Store {
    /// Adds a pending answer, due at `nowMs`, for every CONSUMPTION_REQUEST of `appIds` signed at
    /// or after `sinceMs` that has none yet; returns how many. One whose application to state
    /// failed is answered too: the answer reads the transaction it carried, not the state.
    public func enqueueConsumptionRequests(appIds: [String], sinceMs: Int64, nowMs: Int64) throws(StoreError) -> Int {
        guard !appIds.isEmpty else { return 0 }
        let added = Mutex(0)
        try write { transaction in
            let rows = try transaction.query(
                Self.enqueueConsumptionRequestsSQL(apps: appIds.count),
                [.integer(nowMs), .integer(sinceMs)] + appIds.map { .text($0) })
            added.withLock { $0 += rows.count }
        }
        return added.withLock { $0 }
    }

    /// The insert of `enqueueConsumptionRequests` for `apps` app ids. It runs in the writer every
    /// pass, so it reads the requests through their partial index, not every notification of the
    /// apps: `app_id || ''` keeps SQLite, which has no statistics, from choosing the app's index.
    static func enqueueConsumptionRequestsSQL(apps: Int) -> String {
        """
        INSERT INTO consumption_answers (notification_uuid, app_id, transaction_id, environment, requested_at,
            status, next_attempt_at)
        SELECT n.notification_uuid, n.app_id, n.transaction_id, n.environment, n.signed_date, 'pending', ?
        FROM notifications n
        WHERE n.notification_type = 'CONSUMPTION_REQUEST' AND n.signed_date >= ? AND n.state IN ('applied', 'failed')
            AND n.transaction_id IS NOT NULL AND n.environment IS NOT NULL
            AND n.app_id || '' IN (\(Array(repeating: "?", count: apps).joined(separator: ", ")))
            AND NOT EXISTS (SELECT 1 FROM consumption_answers c WHERE c.notification_uuid = n.notification_uuid)
        RETURNING notification_uuid
        """
    }

    /// Claims the pending answer due at `nowMs` whose request is oldest, for `leaseMs`: its next
    /// attempt moves to `nowMs + leaseMs`, so no other pass, another node's included, takes it
    /// meanwhile. A pass that stops before `recordConsumptionAnswer` leaves it due again when the
    /// lease ends. Nil when none is due, or when another pass claimed the one this one chose.
    /// `onDatabaseClock`: `nowMs` is read from the database server inside the claim
    /// (`WriteTransaction.databaseClockMs`), as nodes that share it must; `nowMs` stays on SQLite.
    public func claimDueConsumptionAnswer(nowMs: Int64, leaseMs: Int64, onDatabaseClock: Bool = false) throws(StoreError)
        -> ConsumptionAnswer?
    {
        let claimed = Mutex<ConsumptionAnswer?>(nil)
        try write { transaction in
            let nowMs = onDatabaseClock ? try transaction.claimClockMs(else: nowMs) : nowMs
            let rows = try transaction.query(
                """
                UPDATE consumption_answers SET next_attempt_at = ?
                WHERE notification_uuid = (
                        SELECT notification_uuid FROM consumption_answers
                        WHERE status = 'pending' AND next_attempt_at <= ?
                        ORDER BY requested_at, notification_uuid LIMIT 1)
                    AND status = 'pending' AND next_attempt_at <= ?
                RETURNING \(ConsumptionAnswerSQL.columns)
                """, [.integer(nowMs + leaseMs), .integer(nowMs), .integer(nowMs)])
            claimed.withLock { $0 = rows.first.flatMap(ConsumptionAnswerSQL.decode) }
        }
        return claimed.withLock { $0 }
    }

    /// Saves what became of an answer claimed until `claimedUntilMs` (the `nextAttemptAtMs` the
    /// claim returned), unless the claim was lost: its lease ended and another pass claimed the
    /// answer, or settled it. False then, and nothing is saved.
    @discardableResult
    public func recordConsumptionAnswer(_ answer: ConsumptionAnswer, claimedUntilMs: Int64) throws(StoreError) -> Bool {
        let saved = Mutex(false)
        try write { transaction in
            let rows = try transaction.query(
                """
                UPDATE consumption_answers SET status = ?, attempts = ?, next_attempt_at = ?, request_json = ?,
                    last_error = ?, answered_at = ?
                WHERE notification_uuid = ? AND status = 'pending' AND next_attempt_at = ?
                RETURNING notification_uuid
                """,
                [
                    .text(answer.status.rawValue), .integer(Int64(answer.attempts)), .integer(answer.nextAttemptAtMs),
                    answer.requestJSON.map(SQLValue.text) ?? .null, answer.lastError.map(SQLValue.text) ?? .null,
                    answer.answeredAtMs.map(SQLValue.integer) ?? .null, .text(answer.notificationUUID),
                    .integer(claimedUntilMs),
                ])
            saved.withLock { $0 = !rows.isEmpty }
        }
        return saved.withLock { $0 }
    }

    /// The value of the subscriber attribute `name` of the customer who owns the purchase of
    /// `transaction` now; nil when nobody owns it or the attribute is not set.
    public func ownerAttribute(_ name: String, of transaction: JWSTransactionDecodedPayload, appId: String)
        throws(StoreError) -> String?
    {
        let purchaseId: String? =
            switch Ledger.Input.transactionPosted(transaction, appUserId: "").purchaseKey {
            case .subscription(let original)?: original
            case .oneTime(let transactionId)?: transactionId
            case nil: nil
            }
        guard let purchaseId else { return nil }
        return try read { (rows) throws(StoreError) in
            guard let owner = try LedgerRows.storedOwner(purchaseId: purchaseId, appId: appId, from: rows).owner else {
                return nil
            }
            do {
                return try CustomerRows.customer(named: owner, appId: appId, from: rows)?.attributes?[name]?.value
            } catch let error as StoreError {
                throw error
            } catch {
                throw StoreError(.corrupt, "customer \(owner), the owner of purchase \(purchaseId), does not decode: \(error)")
            }
        }
    }

    /// The JSON of the transaction a notification carried (`data.signedTransactionInfo`).
    public func notificationTransactionJSON(uuid: String) throws(StoreError) -> String? {
        try readers.read { (connection) throws(StoreError) in
            try connection.query("SELECT transaction_json FROM notifications WHERE notification_uuid = ?", [.text(uuid)])
                .first?.first?.textValue
        }
    }
}

extension StoreReader {
    /// The answer to the consumption request `uuid`, nil when there is none.
    public func consumptionAnswer(notificationUUID uuid: String) throws(StoreError) -> ConsumptionAnswer? {
        try readers.read { (connection) throws(StoreError) in
            try connection.query(
                "SELECT \(ConsumptionAnswerSQL.columns) FROM consumption_answers WHERE notification_uuid = ?", [.text(uuid)]
            ).first.flatMap(ConsumptionAnswerSQL.decode)
        }
    }
}
