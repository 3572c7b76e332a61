/// The reads that `Store` (beside its writer) and `StoreReader` (alone) both answer.
extension ReaderPool {
    /// `body` inside one read transaction: a consistent snapshot of committed data.
    func snapshot<T: Sendable>(_ body: @Sendable (ReadTransaction) throws(StoreError) -> T) throws(StoreError) -> T {
        try read { (connection) throws(StoreError) in
            try connection.beginSnapshot()
            defer { _ = try? connection.run("COMMIT") }
            return try body(ReadTransaction(connection: connection))
        }
    }

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
        try read { (connection) throws(StoreError) in
            var counts: [String: Int] = [:]
            for row in try connection.query("SELECT status, count FROM reject_counts") {
                if let status = row[0].textValue, let count = row[1].integerValue { counts[status] = Int(count) }
            }
            let recent = try connection.query(
                "SELECT app_id, status, reason, at FROM rejects ORDER BY id DESC LIMIT ?",
                [.integer(Int64(RejectLog.recentLimit))]
            ).map { row in
                Reject(
                    appId: row[0].textValue ?? "", status: row[1].textValue ?? "", reason: row[2].textValue ?? "",
                    at: row[3].integerValue ?? 0)
            }
            return RejectLog(counts: counts, recent: recent)
        }
    }
}
