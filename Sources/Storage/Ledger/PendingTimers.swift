import Foundation
import Subscriptions
import Threads

/// Where pending expiration timers are kept, and the one place that reads and writes them.
///
/// A subscription's timer is two columns' worth: its original transaction id and a moment. It is
/// kept in the subscription's own `purchases` row (`timer_fire_at`, migration 13), written by the
/// same upsert that writes the state, so setting it costs no B-tree but the due index. A timer
/// whose subscription has no row (the reducer schedules only for subscriptions it saves, so none
/// in practice) goes to `timers`. Both are read as one list.
public enum PendingTimers {
    /// A due timer, by app and timer id (`ExpirationTimer.id`).
    public struct Due: Hashable, Sendable {
        public var appId: String
        public var id: String

        public init(appId: String, id: String) {
            self.appId = appId
            self.id = id
        }
    }

    /// The original transaction id of the subscription a timer id names, or nil for an id of
    /// another form (which only `timers` can hold).
    public static func originalTransactionId(ofTimer id: String) -> String? {
        guard id.hasPrefix(ExpirationTimer.idPrefix) else { return nil }
        return String(id.dropFirst(ExpirationTimer.idPrefix.count))
    }

    /// The `purchases.purchase_key` of the subscription a timer id names (`originalTransactionId`).
    public static func purchaseKey(ofTimer id: String) -> String? {
        originalTransactionId(ofTimer: id).map { LedgerRows.key(.subscription(originalTransactionId: $0)) }
    }

    /// Up to `limit` timers due at `nowMs`, soonest first.
    public static func due(atMs nowMs: Int64, limit: Int, from rows: some RowReader) throws(StoreError) -> [Due] {
        let found = try rows.query(
            """
            SELECT app_id, '\(ExpirationTimer.idPrefix)' || substr(purchase_key, 3), timer_fire_at FROM purchases WHERE timer_fire_at <= ?
            UNION ALL SELECT app_id, id, fire_at FROM timers WHERE fire_at <= ?
            ORDER BY 3, 1, 2 LIMIT ?
            """, [.integer(nowMs), .integer(nowMs), .integer(Int64(limit))])
        return found.compactMap { row in
            guard let appId = row[0].textValue, let id = row[1].textValue else { return nil }
            return Due(appId: appId, id: id)
        }
    }

    /// The timers due at `nowMs` and not fired yet, and when the oldest came due: the
    /// scheduler's lag, for `/metrics` (the due indexes serve it).
    public static func overdue(atMs nowMs: Int64, from rows: some RowReader) throws(StoreError) -> TimerBacklog {
        let row = try rows.query(
            """
            SELECT count(*), min(due) FROM (
                SELECT timer_fire_at AS due FROM purchases WHERE timer_fire_at <= ?
                UNION ALL SELECT fire_at FROM timers WHERE fire_at <= ?) AS overdue
            """, [.integer(nowMs), .integer(nowMs)]
        ).first
        let oldest = row?[1].integerValue
        return TimerBacklog(
            due: Int(row?[0].integerValue ?? 0),
            oldestDueAgeSeconds: oldest.map { UnixTime.elapsedSeconds(from: $0, to: nowMs) } ?? 0)
    }

    /// The timer `id` of `appId` if it is still due at `nowMs`, read inside the write that fires
    /// it (a notification may have moved it meanwhile); nil when it is not (any more).
    public static func load(_ due: Due, atMs nowMs: Int64, in transaction: WriteTransaction) throws -> ExpirationTimer? {
        if let original = originalTransactionId(ofTimer: due.id),
            let fireAt = try transaction.query(
                "SELECT timer_fire_at FROM purchases WHERE app_id = ? AND purchase_key = ? AND timer_fire_at <= ?",
                [.text(due.appId), .text(LedgerRows.key(.subscription(originalTransactionId: original))), .integer(nowMs)]
            ).first?.first?.integerValue
        {
            return ExpirationTimer(originalTransactionId: original, fireAtMs: fireAt)
        }
        guard
            let json = try transaction.query(
                "SELECT json FROM timers WHERE app_id = ? AND id = ? AND fire_at <= ?",
                [.text(due.appId), .text(due.id), .integer(nowMs)]
            ).first?.first?.textValue
        else { return nil }
        return try LedgerRows.decode(ExpirationTimer.self, json)
    }

    /// Removes the timer, wherever it is kept.
    public static func remove(_ due: Due, in transaction: WriteTransaction) throws(StoreError) {
        if let key = purchaseKey(ofTimer: due.id) {
            try transaction.write(
                "UPDATE purchases SET timer_fire_at = NULL WHERE app_id = ? AND purchase_key = ? AND timer_fire_at IS NOT NULL",
                [.text(due.appId), .text(key)])
        }
        try transaction.write("DELETE FROM timers WHERE app_id = ? AND id = ?", [.text(due.appId), .text(due.id)])
    }

    /// Moves a timer still due at `nowMs` to `laterMs`.
    public static func postpone(_ due: Due, dueAtMs nowMs: Int64, toMs laterMs: Int64, in transaction: WriteTransaction)
        throws(StoreError)
    {
        if let key = purchaseKey(ofTimer: due.id) {
            try transaction.write(
                "UPDATE purchases SET timer_fire_at = ? WHERE app_id = ? AND purchase_key = ? AND timer_fire_at <= ?",
                [.integer(laterMs), .text(due.appId), .text(key), .integer(nowMs)])
        }
        try transaction.write(
            "UPDATE timers SET fire_at = ? WHERE app_id = ? AND id = ? AND fire_at <= ?",
            [.integer(laterMs), .text(due.appId), .text(due.id), .integer(nowMs)])
    }

    /// Removes the timer of subscription `originalTransactionId` kept in `timers` and gives its
    /// moment, for the subscription's first row to carry: so a subscription never has a timer in
    /// both places.
    /// `known` is its moment as the slice already read it (`.some(nil)`: none kept), else nil.
    public static func adoptKept(
        forSubscription originalTransactionId: String, appId: String, known: Int64?? = nil, in transaction: WriteTransaction
    ) throws(StoreError) -> Int64? {
        let id = keptTimerId(forSubscription: originalTransactionId)
        // Looked up first: almost every subscription has none kept, and a SELECT that finds
        // nothing costs the writer a fifth of a `DELETE ... RETURNING` that deletes nothing (which
        // opens a write cursor and collects its answer in a temporary table).
        let lookup = keptTimerQuery(id: id, appId: appId)
        let found: Int64?
        if let known {
            found = known
        } else {
            found = try transaction.query(lookup.sql, lookup.arguments).first?.first?.integerValue
        }
        guard let fireAt = found else { return nil }
        try transaction.write("DELETE FROM timers WHERE app_id = ? AND id = ?", [.text(appId), .text(id)])
        return fireAt
    }

    /// The id of the timer `timers` may keep for subscription `originalTransactionId`.
    static func keptTimerId(forSubscription originalTransactionId: String) -> String {
        ExpirationTimer(originalTransactionId: originalTransactionId, fireAtMs: 0).id
    }

    /// The query for the moment of kept timer `id`.
    static func keptTimerQuery(id: String, appId: String) -> (sql: String, arguments: [SQLValue]) {
        ("SELECT fire_at FROM timers WHERE app_id = ? AND id = ?", [.text(appId), .text(id)])
    }

    /// Sets a timer that the upsert of its purchase did not carry: into the subscription's row
    /// when there is one, else into `timers`. Either way it replaces the pending one.
    public static func schedule(_ timer: ExpirationTimer, appId: String, in transaction: WriteTransaction) throws {
        let key = LedgerRows.key(.subscription(originalTransactionId: timer.originalTransactionId))
        let moved = try transaction.execute(
            "UPDATE purchases SET timer_fire_at = ? WHERE app_id = ? AND purchase_key = ?",
            [.integer(timer.fireAtMs), .text(appId), .text(key)])
        guard moved == 0 else { return }
        try transaction.write(
            "INSERT INTO timers (app_id, id, fire_at, json) VALUES (?, ?, ?, ?) ON CONFLICT (app_id, id) DO UPDATE SET fire_at = excluded.fire_at, json = excluded.json",
            [.text(appId), .text(timer.id), .integer(timer.fireAtMs), .text(try LedgerRows.encode(timer))])
    }
}

/// Timers due and not fired yet (`PendingTimers.overdue`).
public struct TimerBacklog: Sendable, Equatable {
    public var due: Int
    /// How long ago the oldest came due; 0 when none is due.
    public var oldestDueAgeSeconds: Double

    public init(due: Int, oldestDueAgeSeconds: Double) {
        self.due = due
        self.oldestDueAgeSeconds = oldestDueAgeSeconds
    }
}
