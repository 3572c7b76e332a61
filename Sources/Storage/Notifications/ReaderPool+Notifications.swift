/// The notification and reject reads that `Store` (beside its writer) and `StoreReader` (alone) both answer.
extension ReaderPool {
    /// Notifications matching `filter`, newest first (by `receivedAt`, then by insertion order).
    func notifications(_ filter: NotificationFilter) throws(StoreError) -> [NotificationRecord] {
        let (sql, arguments) = NotificationSQL.selectMatching(filter)
        return try read { (connection) throws(StoreError) in
            try connection.query(sql, arguments).map { (row) throws(StoreError) in
                try NotificationSQL.record(row, in: connection, dictionaries: dictionaries)
            }
        }
    }

    /// The notification with this UUID, or nil.
    func notification(uuid: String) throws(StoreError) -> NotificationRecord? {
        try read { (connection) throws(StoreError) in
            try connection.query(NotificationSQL.selectByUUID, [.text(uuid)]).first.map {
                (row) throws(StoreError) in try NotificationSQL.record(row, in: connection, dictionaries: dictionaries)
            }
        }
    }

    /// The reject counts by status and the newest rejects (newest first), as committed.
    func rejectLog() throws(StoreError) -> RejectLog {
        try read { (connection) throws(StoreError) in try RejectRows.log(in: connection) }
    }
}
