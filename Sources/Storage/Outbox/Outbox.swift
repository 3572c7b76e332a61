import AppStore
import Foundation
import JSON
import Subscriptions
import Threads

/// The events table as an outbox: events are written in the transaction that made them, and,
/// for apps with a webhook, a pending delivery beside each.
///
/// Delivery rows are operational state (`deliveries`): replay rebuilds `events` but keeps them,
/// so an event already delivered stays delivered.
public enum Outbox {
    /// Inserts `event` unless an event with its id exists (re-processing repeats ids exactly),
    /// with the next global `position`; and a pending delivery, due at once, for each of
    /// `webhooks` that takes it (its environment and type filters), only when the event was
    /// inserted here.
    ///
    /// Nothing here waits for an answer, so on PostgreSQL every statement is sent ahead: the
    /// delivery takes its position from the event row this insert made, found by its id, the
    /// input's time `nowMs` and the highest position (positions are given as the highest
    /// plus one, or past the floor of positions gone, under the write lock). An event stored
    /// earlier under the same id has a lower position or another time, so it gets no delivery
    /// from here, as it would not from `RETURNING`; unless it is still the newest event and was
    /// made at the same `nowMs`: then a webhook that has no delivery of it yet gets one. No path
    /// is known to reach that: it needs the same event id made twice at the same `nowMs`, the
    /// first time without that delivery.
    public static func insert(
        _ event: Event, appId: String, at nowMs: Int64, webhooks: [WebhookRoute], in transaction: WriteTransaction
    ) throws {
        transaction.noteEventsWritten()
        try transaction.write(
            """
            INSERT INTO events (id, app_id, customer, sequence, type, json, created_at, position)
            VALUES (?, ?, ?, ?, ?, ?, ?, (\(EventPositions.nextSQL)))
            ON CONFLICT (id) DO NOTHING
            """,
            [
                .text(event.id), .text(appId), event.customerId.map(SQLValue.text) ?? .null,
                event.sequence.map(SQLValue.integer) ?? .null, .text(event.type.rawValue),
                .text(try LedgerRows.encode(event)), .integer(nowMs),
            ])
        for webhook in webhooks where webhook.accepts(event) {
            transaction.noteOutboxChanged(appId: appId)
            try transaction.write(
                """
                INSERT INTO deliveries (event_id, webhook, app_id, customer, position, status, next_attempt_at, created_at)
                SELECT id, ?, app_id, customer, position, 'pending', ?, ? FROM events
                WHERE id = ? AND created_at = ? AND position = (SELECT max(position) FROM events)
                ON CONFLICT (event_id, webhook) DO NOTHING
                """,
                [.text(webhook.id), .integer(nowMs), .integer(nowMs), .text(event.id), .integer(nowMs)])
        }
    }

    /// Moves the pending deliveries of customer `from` to customer `to`, which `from` was merged
    /// into: a customer's deliveries go one after another in event order (`due`), so the events
    /// made before the merge hold back those made after it. Events keep the id they were made for.
    public static func movePending(of from: String, to: String, appId: String, in transaction: WriteTransaction) throws {
        // Read through `deliveries_pending_by_customer`: that customer's pending rows alone.
        try transaction.write(
            "UPDATE deliveries SET customer = ? WHERE app_id = ? AND customer = ? AND status = 'pending'",
            [.text(to), .text(appId), .text(from)])
    }
}

/// One event on its way to a webhook.
public struct DueDelivery: Sendable, Hashable {
    public var eventId: String
    /// The app whose outbox holds it: its outcome wakes that app's workers.
    public var appId: String
    /// The webhook it goes to (`WebhookRoute.id`).
    public var webhook = ""
    public var customer: String?
    /// Attempts made before this one.
    public var attempts: Int
    /// The stored event JSON (sorted keys), from which the body is made.
    public var eventJSON: String
    /// When the event was committed (UNIX ms), for the notification-to-delivery latency.
    public var createdAtMs: Int64
    /// The node that claimed it (`Deliveries.claimDue`); nil where one node has the database.
    /// A failure is recorded only while the claim is still this node's (`Deliveries.record`).
    public var claimedBy: String?

    public init(
        eventId: String, appId: String, webhook: String = "", customer: String?, attempts: Int, eventJSON: String,
        createdAtMs: Int64, claimedBy: String? = nil
    ) {
        self.eventId = eventId
        self.appId = appId
        self.webhook = webhook
        self.customer = customer
        self.attempts = attempts
        self.eventJSON = eventJSON
        self.createdAtMs = createdAtMs
        self.claimedBy = claimedBy
    }
}

/// What became of one attempt.
public enum DeliveryOutcome: Sendable, Equatable {
    case delivered(status: Int)
    /// A non-2xx answer (`status`) or no answer at all (`status` nil), with a reason.
    case failed(status: Int?, reason: String)
}

/// The delivery rows of the outbox: what is due, what happened, what operators see and change.
public enum Deliveries {
    /// Pending deliveries of `appId` to `webhook` due at `nowMs`, oldest first, each the earliest
    /// pending event of its customer: a later event waits while an earlier one is pending. An
    /// earlier event not yet tried, or being tried for the first time (in flight, listed in
    /// `inFlight` or claimed by a node other than `node` until after `nowMs`), always holds it;
    /// one that has failed holds it for `holdMs` after it was made, then the later one goes and
    /// the failing one keeps retrying on its own. Dead-lettered and delivered events do not block.
    ///
    /// A delivery whose event no longer exists (see `Replay`) is skipped, so it never blocks its customer.
    ///
    /// Walks the pending index in position order, in windows that start at what is in flight and
    /// twice what may be picked (at least 16 rows) and double up to `window` rows, reading at
    /// most `window × maxWindows` rows (so that one customer's long backlog cannot hide everyone
    /// behind it). A backlog behind a slow receiver thus costs each look a few dozen rows, not
    /// `window`. It decides in Swift: the first pending row seen for a customer is that
    /// customer's earliest. Rows that can neither go nor hold (failed, waiting for a retry, past
    /// their hold) are left out by the query, so a backlog of retries after a receiver's outage
    /// does not fill the windows and hide the events made since.
    public static func due(
        appId: String, webhook: String = "", nowMs: Int64, limit: Int, holdMs: Int64 = .max, window: Int = 2000,
        maxWindows: Int = 10, inFlight: Set<String>, node: String? = nil, from rows: some RowReader
    ) throws -> [DueDelivery] {
        var blocked: Set<String> = []
        var picked: [(id: String, customer: String?, attempts: Int, createdAt: Int64)] = []
        var after: Int64 = 0
        // Made after this still holds when it failed (`elapsedMs < holdMs`, saturating).
        let (holdStart, overflow) = nowMs.subtractingReportingOverflow(holdMs)
        let heldSince = overflow ? Int64.min : holdStart
        var size = min(window, max(16, inFlight.count + 2 * limit))
        var budget = window * maxWindows
        while budget > 0 {
            size = min(size, budget)
            budget -= size
            let pending = try rows.query(
                """
                SELECT d.event_id, d.customer, d.attempts, d.next_attempt_at, d.created_at, d.position, d.claimed_by,
                    d.claimed_until
                FROM deliveries d JOIN events e ON e.id = d.event_id
                WHERE d.app_id = ? AND d.webhook = ? AND d.status = 'pending' AND d.position > ?
                    AND (d.next_attempt_at <= ? OR d.attempts <= 0 OR d.created_at >= ?)
                ORDER BY d.position LIMIT ?
                """,
                [
                    .text(appId), .text(webhook), .integer(after), .integer(nowMs), .integer(heldSince),
                    .integer(Int64(size)),
                ])
            for row in pending {
                guard picked.count < limit, let id = row[0].textValue else { break }
                let customer = row[1].textValue
                if let customer, blocked.contains(customer) { continue }
                // Claimed by another node (`claimDue`) until later: in flight there.
                let claimedElsewhere =
                    node != nil && row[6].textValue != nil && row[6].textValue != node && (row[7].integerValue ?? 0) > nowMs
                let isDue = !inFlight.contains(id) && !claimedElsewhere && (row[3].integerValue ?? 0) <= nowMs
                // A stored count outside 0...Int32.max (no build writes one) is read at its bound:
                // attempts + 1 and the retry delay it indexes stay in range.
                let attempts = Int(min(max(row[2].integerValue ?? 0, 0), Int64(Int32.max)))
                // The customer's earliest pending event holds the later ones back until it has
                // failed once, and then until the hold since it was made is over.
                let holding =
                    isDue || attempts == 0 || UnixTime.elapsedMs(from: row[4].integerValue ?? nowMs, to: nowMs) < holdMs
                if let customer, holding { blocked.insert(customer) }
                guard isDue else { continue }
                picked.append((id, customer, attempts, row[4].integerValue ?? 0))
            }
            guard picked.count < limit, pending.count == size, let last = pending.last?[5].integerValue else { break }
            after = last
            size = min(2 * size, window)
        }
        guard !picked.isEmpty else { return [] }
        let placeholders = Array(repeating: "?", count: picked.count).joined(separator: ", ")
        var json: [String: String] = [:]
        for row in try rows.query("SELECT id, json FROM events WHERE id IN (\(placeholders))", picked.map { .text($0.id) }) {
            if let id = row[0].textValue, let text = row[1].textValue { json[id] = text }
        }
        return picked.compactMap { entry in
            json[entry.id].map {
                DueDelivery(
                    eventId: entry.id, appId: appId, webhook: webhook, customer: entry.customer, attempts: entry.attempts,
                    eventJSON: $0,
                    createdAtMs: entry.createdAt)
            }
        }
    }

    /// Records an attempt: delivered, or retried after `retryDelaysSeconds[attempt - 1]`, or dead
    /// once every delay is used (`DeliveryStep.after`). Returns the step recorded.
    @discardableResult
    public static func record(
        _ outcome: DeliveryOutcome, of delivery: DueDelivery, retryDelaysSeconds: [Int], at nowMs: Int64,
        in transaction: WriteTransaction
    ) throws -> DeliveryStep {
        let step = DeliveryStep.after(
            outcome, attemptsBefore: delivery.attempts, retryDelaysSeconds: retryDelaysSeconds, at: nowMs)
        try record(step, of: delivery, in: transaction)
        return step
    }

    /// Writes `step` to `delivery`'s row, if it is still pending, and gives up the claim. A
    /// delivery is a fact whoever holds the claim: it is recorded, and another node's attempt
    /// since then records nothing (the row is no longer pending). A failure is recorded only
    /// while the delivery is still claimed as it was when it was picked (`claimedBy`): a node
    /// whose lease ran out while it sent leaves the decision to the node that claimed it since,
    /// whose claim it does not cut short.
    public static func record(_ step: DeliveryStep, of delivery: DueDelivery, in transaction: WriteTransaction) throws {
        transaction.noteOutboxChanged(appId: delivery.appId)
        let key: [SQLValue] = [.text(delivery.eventId), .text(delivery.webhook)]
        let claim = key + [delivery.claimedBy.map(SQLValue.text) ?? .null]
        switch step {
        case .delivered(let attempts, let atMs, let status):
            try transaction.write(
                """
                UPDATE deliveries SET status = 'delivered', attempts = ?, delivered_at = ?, last_status = ?, last_error = NULL,
                    claimed_by = NULL, claimed_until = NULL
                WHERE event_id = ? AND webhook = ? AND status = 'pending'
                """,
                [.integer(Int64(attempts)), .integer(atMs), .integer(Int64(status))] + key)
        case .retry(let attempts, let atMs, let status, let reason):
            try fail(as: "pending", attempts: attempts, nextMs: atMs, status: status, reason: reason, claim, transaction)
        case .dead(let attempts, let atMs, let status, let reason):
            // A dead letter's next attempt is the time of its last.
            try fail(as: "dead", attempts: attempts, nextMs: atMs, status: status, reason: reason, claim, transaction)
        }
    }

    private static func fail(
        as state: String, attempts: Int, nextMs: Int64, status answer: Int?, reason: String, _ key: [SQLValue],
        _ transaction: WriteTransaction
    ) throws {
        try transaction.write(
            """
            UPDATE deliveries SET status = ?, attempts = ?, next_attempt_at = ?, last_status = ?,
                last_error = ?, claimed_by = NULL, claimed_until = NULL
            WHERE event_id = ? AND webhook = ? AND status = 'pending' AND claimed_by IS NOT DISTINCT FROM ?
            """,
            [
                .text(state), .integer(Int64(attempts)), .integer(nextMs),
                answer.map { .integer(Int64($0)) } ?? .null, .text(reason),
            ] + key)
    }

    /// What `resend` did.
    public enum Resent: Equatable, Sendable {
        /// No event has that id.
        case noEvent
        /// Due again at once for every webhook whose filters take it.
        case due
        /// Due again, but for `webhooks`, where a node is sending it right now (its claim is
        /// live): that attempt is left to finish, and its outcome recorded as it comes, so two
        /// nodes never send one event at once.
        case sending(webhooks: [String])
    }

    /// Makes an event due again at once for each of `webhooks` (a dead letter, or a delivered
    /// event sent again on purpose); creates its delivery if it never had one. A delivery a
    /// node has claimed and is sending is left as it is (`Resent.sending`). `nowMs` judges the
    /// claims: where nodes share a database, its clock (`databaseClockMs`), as claims are taken.
    public static func resend(eventId: String, webhooks: [WebhookRoute], at nowMs: Int64, in transaction: WriteTransaction)
        throws -> Resent
    {
        guard
            let row = try transaction.query(
                // Queued with the customer its customer's id names now: one merged since joined another.
                """
                SELECT e.app_id, COALESCE(a.app_user_id, e.customer), e.position, e.json FROM events e
                LEFT JOIN customer_aliases a ON a.app_id = e.app_id AND a.alias = e.customer
                WHERE e.id = ?
                """, [.text(eventId)]
            ).first,
            let appId = row[0].textValue
        else { return .noEvent }
        // To the webhooks whose filters take it, as when it was made.
        let event = try Event(json: JSONValue(parsing: Data((row[3].textValue ?? "{}").utf8)))
        var sending: [String] = []
        for webhook in webhooks.filter({ $0.accepts(event) }).map(\.id) {
            transaction.noteOutboxChanged(appId: appId)
            try transaction.write(
                """
                INSERT INTO deliveries (event_id, webhook, app_id, customer, position, status, next_attempt_at, created_at)
                VALUES (?, ?, ?, ?, ?, 'pending', ?, ?)
                ON CONFLICT (event_id, webhook) DO UPDATE SET status = 'pending', attempts = 0, customer = excluded.customer,
                    next_attempt_at = excluded.next_attempt_at, last_error = NULL, claimed_by = NULL, claimed_until = NULL
                WHERE deliveries.claimed_until IS NULL OR deliveries.claimed_until <= ?
                """,
                [
                    .text(eventId), .text(webhook), .text(appId), row[1], row[2], .integer(nowMs), .integer(nowMs),
                    .integer(nowMs),
                ])
            let claimed = try transaction.query(
                "SELECT 1 FROM deliveries WHERE event_id = ? AND webhook = ? AND claimed_until > ?",
                [.text(eventId), .text(webhook), .integer(nowMs)])
            if !claimed.isEmpty { sending.append(webhook) }
        }
        return sending.isEmpty ? .due : .sending(webhooks: sending)
    }
}

extension Deliveries {
    /// Counts for `/metrics`: the backlog of each app and webhook that has a pending or dead
    /// delivery (configured or not: a webhook renamed or removed leaves its deliveries behind).
    public static func status(nowMs: Int64, from rows: some RowReader) throws(StoreError) -> OutboxStatus {
        let grouped = try rows.query(
            """
            SELECT app_id, webhook, count(*) FILTER (WHERE status = 'pending'),
                   count(*) FILTER (WHERE status = 'pending' AND attempts > 0), count(*) FILTER (WHERE status = 'dead'),
                   min(created_at) FILTER (WHERE status = 'pending')
            FROM deliveries WHERE status IN ('pending', 'dead') GROUP BY app_id, webhook ORDER BY app_id, webhook
            """, [])
        return OutboxStatus(
            webhooks: grouped.map { row in
                WebhookBacklog(
                    appId: row[0].textValue ?? "", webhook: row[1].textValue ?? "", pending: Int(row[2].integerValue ?? 0),
                    retrying: Int(row[3].integerValue ?? 0), dead: Int(row[4].integerValue ?? 0),
                    oldestPendingAgeSeconds: row[5].integerValue.map { UnixTime.elapsedSeconds(from: $0, to: nowMs) } ?? 0)
            })
    }
}

/// The delivery backlog, read from storage when `/metrics` is scraped.
public struct OutboxStatus: Sendable {
    /// Each app and webhook with a pending or dead delivery, ordered by app and webhook.
    public var webhooks: [WebhookBacklog]

    public init(webhooks: [WebhookBacklog] = []) { self.webhooks = webhooks }

    /// The backlogs with pending deliveries of webhooks `configured` does not hold (renamed or
    /// removed): no worker sends them.
    public func unserved(by configured: Set<WebhookKey>) -> [WebhookBacklog] {
        webhooks.filter { $0.pending > 0 && !configured.contains($0.key) }
    }
}

/// A webhook of an app: the app and the webhook's id in its `webhooks` ("" for the unnamed one).
public struct WebhookKey: Sendable, Hashable {
    public var appId: String
    public var webhook: String

    public init(appId: String, webhook: String) {
        self.appId = appId
        self.webhook = webhook
    }
}

/// One webhook's deliveries waiting or given up on.
public struct WebhookBacklog: Sendable, Equatable {
    public var appId: String
    /// The webhook's id in the app's `webhooks` ("" for the unnamed one).
    public var webhook: String
    public var pending: Int
    /// Pending deliveries that failed at least once.
    public var retrying: Int
    public var dead: Int
    /// The age of the oldest pending delivery; 0 when none is pending.
    public var oldestPendingAgeSeconds: Double

    public var key: WebhookKey { WebhookKey(appId: appId, webhook: webhook) }

    public init(
        appId: String, webhook: String, pending: Int = 0, retrying: Int = 0, dead: Int = 0,
        oldestPendingAgeSeconds: Double = 0
    ) {
        self.appId = appId
        self.webhook = webhook
        self.pending = pending
        self.retrying = retrying
        self.dead = dead
        self.oldestPendingAgeSeconds = oldestPendingAgeSeconds
    }
}
