/// The reject log's tables: `rejects` (the newest entries) and `reject_counts` (by status, since
/// the database was created).
enum RejectRows {
    /// Adds a batch of rejects and their counts.
    static func record(_ batch: PendingRejects.Batch, in connection: any StatementRunner) throws(StoreError) {
        for reject in batch.recent {
            try connection.run(
                "INSERT INTO rejects (app_id, status, reason, at) VALUES (?, ?, ?, ?)",
                [.text(reject.appId), .text(reject.status), .text(reject.reason), .integer(reject.at)])
        }
        for (status, count) in batch.counts {
            try connection.run(
                "INSERT INTO reject_counts (status, count) VALUES (?, ?) ON CONFLICT (status) DO UPDATE SET count = reject_counts.count + excluded.count",
                [.text(status), .integer(Int64(count))])
        }
    }

    /// Keeps the newest `RejectLog.recentLimit` rejects.
    static func trim(in connection: any StatementRunner) throws(StoreError) {
        try connection.run(
            "DELETE FROM rejects WHERE id <= (SELECT id FROM rejects ORDER BY id DESC LIMIT 1 OFFSET ?)",
            [.integer(Int64(RejectLog.recentLimit))])
    }

    /// The counts by status and the newest rejects, newest first.
    static func log(in connection: any StatementRunner) throws(StoreError) -> RejectLog {
        var counts: [String: Int] = [:]
        for row in try connection.query("SELECT status, count FROM reject_counts", []) {
            if let status = row[0].textValue, let count = row[1].integerValue { counts[status] = Int(count) }
        }
        let recent = try connection.query(
            "SELECT app_id, status, reason, at FROM rejects ORDER BY id DESC LIMIT ?", [.integer(Int64(RejectLog.recentLimit))]
        ).map { row in
            Reject(
                appId: row[0].textValue ?? "", status: row[1].textValue ?? "", reason: row[2].textValue ?? "",
                at: row[3].integerValue ?? 0)
        }
        return RejectLog(counts: counts, recent: recent)
    }
}
