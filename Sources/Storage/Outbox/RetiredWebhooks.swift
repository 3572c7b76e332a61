import Foundation
import JSON
import Subscriptions

/// A webhook name an app's configuration gave up, and what becomes of its deliveries: they go
/// to the webhook that took its place (renamed: `successor`), or are dropped (removed).
public struct RetiredWebhook: Sendable, Hashable {
    public var appId: String
    /// Its id in `deliveries.webhook` (`""` for an app's one unnamed webhook).
    public var name: String
    /// The configured webhook that took its place; nil when it was removed.
    public var successor: WebhookRoute?

    public init(appId: String, name: String, successor: WebhookRoute?) {
        self.appId = appId
        self.name = name
        self.successor = successor
    }
}

extension Deliveries {
    /// What retiring one webhook name did to its deliveries.
    public struct Retirement: Sendable, Equatable {
        /// Deliveries now the successor's, each as it stood (pending, retrying, delivered, dead).
        public var moved: Int
        /// Deliveries dropped: all of a removed webhook's; of a renamed one's, those of events the
        /// successor already has a delivery of, or whose filters do not take.
        public var dropped: Int

        public init(moved: Int, dropped: Int) {
            self.moved = moved
            self.dropped = dropped
        }
    }

    /// Gives `retired`'s deliveries to its successor, or drops them. Idempotent: a name with no
    /// deliveries left changes nothing, so every node may apply it at each start and reload.
    ///
    /// A moved delivery keeps its status, position and any claim; a pending one is due at
    /// `nowMs` as never tried (the successor has not tried it; the old name's failures were
    /// another receiver's), a delivered or dead one stays so. A node sending it under the old
    /// name right now cannot record the outcome under the new one, so the claim holds every
    /// other node off until it lapses, and the event is sent again then (a duplicate, never two
    /// at once). A moved pending event goes in position order with the successor's own, so it
    /// may reach the consumer after later events of its customer the successor already
    /// delivered (`sequence` orders them).
    public static func retire(_ retired: RetiredWebhook, at nowMs: Int64, in transaction: WriteTransaction) throws
        -> Retirement
    {
        var moved = 0
        if let successor = retired.successor, successor.id != retired.name {
            let candidates = try transaction.query(
                """
                SELECT d.event_id, e.json FROM deliveries d LEFT JOIN events e ON e.id = d.event_id
                WHERE d.app_id = ? AND d.webhook = ?
                  AND NOT EXISTS (SELECT 1 FROM deliveries s WHERE s.event_id = d.event_id AND s.webhook = ?)
                """, [.text(retired.appId), .text(retired.name), .text(successor.id)])
            for row in candidates {
                guard let eventId = row[0].textValue, try takes(successor, json: row[1].textValue) else { continue }
                moved += try transaction.execute(
                    """
                    UPDATE deliveries SET webhook = ?,
                        attempts = CASE WHEN status = 'pending' THEN 0 ELSE attempts END,
                        next_attempt_at = CASE WHEN status = 'pending' THEN ? ELSE next_attempt_at END,
                        last_status = CASE WHEN status = 'pending' THEN NULL ELSE last_status END,
                        last_error = CASE WHEN status = 'pending' THEN NULL ELSE last_error END
                    WHERE event_id = ? AND webhook = ?
                    """, [.text(successor.id), .integer(nowMs), .text(eventId), .text(retired.name)])
            }
        }
        let dropped = try transaction.execute(
            "DELETE FROM deliveries WHERE app_id = ? AND webhook = ?", [.text(retired.appId), .text(retired.name)])
        if moved > 0 { transaction.noteOutboxChanged(appId: retired.appId) }
        return Retirement(moved: moved, dropped: dropped)
    }

    /// Whether `route` takes the event stored as `json`; an event no longer stored (see
    /// `Replay`) goes nowhere.
    private static func takes(_ route: WebhookRoute, json: String?) throws -> Bool {
        guard let json else { return false }
        if route.environments == nil, route.eventTypes == nil { return true }
        return route.accepts(try Event(json: JSONValue(parsing: Data(json.utf8))))
    }
}

extension Store {
    /// Retires each of `webhooks` (`Deliveries.retire`) in one write, and says what it did to
    /// each, in the order given. What is moved pending is due at `nowMs`, on the claim clock
    /// (`WriteTransaction.claimClockMs`) where nodes share the database.
    public func retireWebhooks(_ webhooks: [RetiredWebhook], nowMs: Int64) throws(StoreError)
        -> [Deliveries.Retirement]
    {
        guard !webhooks.isEmpty else { return [] }
        return try writeReturning { transaction in
            let atMs = try transaction.claimClockMs(else: nowMs)
            return try webhooks.map { try Deliveries.retire($0, at: atMs, in: transaction) }
        }
    }
}
