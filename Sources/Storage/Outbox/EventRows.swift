/// An event as `revenuedot events` lists it: the stored event and one webhook's delivery of it.
public struct EventListing: Sendable, Equatable {
    public var id: String
    public var appId: String
    public var customer: String?
    public var sequence: Int64?
    public var type: String
    /// The stored event JSON (sorted keys).
    public var json: String
    public var createdAtMs: Int64
    /// The event's cursor (`events.position`).
    public var position: Int64
    /// Its delivery to `webhook`: nil status when it has none.
    public var deliveryStatus: String?
    public var attempts: Int64
    public var nextAttemptAtMs: Int64?
    public var deliveredAtMs: Int64?
    public var lastStatus: Int64?
    public var lastError: String?
    public var webhook: String?
}

/// Which events `EventRows.list` returns; nil fields do not filter.
public struct EventFilter: Sendable, Equatable {
    /// Any id of a customer (its own or an alias): the events made under each of its ids.
    public var customer: String?
    public var appId: String?
    /// A delivery status, or `none` for events without a delivery.
    public var deliveryStatus: String?
    /// At most this many, capped at `EventFilter.maximumLimit`.
    public var limit: Int64 = 100
    /// How many of the newest matching rows to skip (the next page).
    public var offset: Int64 = 0

    /// The largest page the store returns.
    public static let maximumLimit = 1000

    public init(
        customer: String? = nil, appId: String? = nil, deliveryStatus: String? = nil, limit: Int64 = 100, offset: Int64 = 0
    ) {
        self.customer = customer
        self.appId = appId
        self.deliveryStatus = deliveryStatus
        self.limit = limit
        self.offset = offset
    }
}

/// Reads of the `events` table for people and consumers: the `/v1/events` feed and the listing
/// of `revenuedot events`. (Writing is the outbox's: `Outbox.insert`.)
public enum EventRows {
    /// Up to `limit` events of `appId` after cursor `after`, and at most at position `upTo` (the
    /// highest on disk: `DurableEvents`), in cursor order: (position, JSON).
    public static func page(
        appId: String, after: Int64, upTo: Int64 = .max, limit: Int, from rows: some RowReader
    ) throws(StoreError) -> [(position: Int64, json: String?)] {
        try rows.query(pageSQL, [.text(appId), .integer(after), .integer(upTo), .integer(Int64(limit))]).compactMap { row in
            row[0].integerValue.map { ($0, row[1].textValue) }
        }
    }

    /// The highest position any event was given (an event gone since counts: see
    /// `EventPositions`); 0 before the first. A cursor past it was never handed out.
    public static func highestPosition(from rows: some RowReader) throws(StoreError) -> Int64 {
        try rows.query(EventPositions.highestSQL, []).first?.first?.integerValue ?? 0
    }

    /// The query of `page`: the app's events after the cursor in position order, through
    /// `events_by_app` (migration 27), stopping at the page's end: neither every event of the
    /// app read and sorted, nor other apps' events walked past.
    static let pageSQL =
        "SELECT position, json FROM events WHERE app_id = ? AND position > ? AND position <= ? ORDER BY position LIMIT ?"

    /// The newest events matching `filter`, one row per delivery, newest first (an event's rows
    /// by webhook name, so pages never split or repeat them). The customer is named by its own
    /// id or any alias, as everywhere, and has every event made under any of its ids: those made
    /// before two customers became one are the one customer's, whichever id names it.
    public static func list(_ filter: EventFilter, from rows: some RowReader) throws(StoreError) -> [EventListing] {
        var conditions: [String] = []
        var arguments: [SQLValue] = []
        if let customer = filter.customer {
            conditions.append("(e.customer = ? OR (e.app_id, e.customer) IN (\(customerIdsSQL)))")
            arguments += Array(repeating: .text(customer), count: 4)
        }
        if let app = filter.appId {
            conditions.append("e.app_id = ?")
            arguments.append(.text(app))
        }
        if let status = filter.deliveryStatus {
            conditions.append(status == "none" ? "d.status IS NULL" : "d.status = ?")
            if status != "none" { arguments.append(.text(status)) }
        }
        arguments += [.integer(max(0, min(filter.limit, Int64(EventFilter.maximumLimit)))), .integer(max(0, filter.offset))]
        let sql = """
            SELECT e.id, e.app_id, e.customer, e.sequence, e.type, e.json, e.created_at, e.position,
                   d.status, d.attempts, d.next_attempt_at, d.delivered_at, d.last_status, d.last_error, d.webhook
            FROM events e LEFT JOIN deliveries d ON d.event_id = e.id
            \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
            ORDER BY e.position DESC, d.webhook LIMIT ? OFFSET ?
            """
        return try rows.query(sql, arguments).map { row in
            EventListing(
                id: row[0].textValue ?? "", appId: row[1].textValue ?? "", customer: row[2].textValue,
                sequence: row[3].integerValue, type: row[4].textValue ?? "", json: row[5].textValue ?? "{}",
                createdAtMs: row[6].integerValue ?? 0, position: row[7].integerValue ?? 0, deliveryStatus: row[8].textValue,
                attempts: row[9].integerValue ?? 0, nextAttemptAtMs: row[10].integerValue, deliveredAtMs: row[11].integerValue,
                lastStatus: row[12].integerValue, lastError: row[13].textValue, webhook: row[14].textValue)
        }
    }

    /// The other ids, by app, of the customer an id names (its three arguments: that id, as `list` binds it), for
    /// `list`: where it is an alias, the customer's own id and its other aliases; where it is the
    /// customer's own id, its aliases. (An alias row lives as long as its customer: an id merged
    /// into another, and every alias it had, point at the customer they joined.)
    static let customerIdsSQL = """
        SELECT app_id, app_user_id FROM customer_aliases WHERE alias = ?
        UNION ALL SELECT a.app_id, a.alias FROM customer_aliases n
            JOIN customer_aliases a ON a.app_id = n.app_id AND a.app_user_id = n.app_user_id WHERE n.alias = ?
        UNION ALL SELECT app_id, alias FROM customer_aliases WHERE app_user_id = ?
        """

    /// The app the event `id` belongs to; nil when there is no such event.
    public static func appId(ofEvent id: String, from rows: some RowReader) throws(StoreError) -> String? {
        try rows.query("SELECT app_id FROM events WHERE id = ?", [.text(id)]).first?.first?.textValue
    }
}
