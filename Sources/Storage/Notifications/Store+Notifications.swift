/// What the store reads of notifications, on a reader connection beside the writer.
extension Store {
    /// Notifications matching `filter`, newest first (by `receivedAt`, then by insertion order).
    public func notifications(_ filter: NotificationFilter) throws(StoreError) -> [NotificationRecord] {
        try readers.notifications(filter)
    }

    /// The UUIDs of every notification in `state` (of `appId`, or of every app), in the order they were stored: a
    /// list to walk one `notification(uuid:)` at a time, however many there are.
    public func notificationUUIDs(appId: String? = nil, state: NotificationState) throws(StoreError) -> [String] {
        // The literal second term lets SQLite use the partial index on rows not applied.
        let sql =
            "SELECT notification_uuid FROM notifications WHERE state = ?"
            + (state == .applied ? "" : " AND state != 'applied'") + (appId == nil ? "" : " AND app_id = ?") + " ORDER BY id"
        let arguments: [SQLValue] = [.text(state.rawValue)] + (appId.map { [.text($0)] } ?? [])
        return try readers.read { (connection) throws(StoreError) in
            try connection.query(sql, arguments).compactMap { $0.first?.textValue }
        }
    }

    /// The notification with this UUID, or nil.
    public func notification(uuid: String) throws(StoreError) -> NotificationRecord? {
        try readers.notification(uuid: uuid)
    }
}
