import Threads

// MARK: - Backfill marks

extension ReaderPool {
    /// How far Apple's notification history of `appId` in `environment` has been read through
    /// by a backfill that completed (UNIX ms), nil before the first.
    func backfillMark(appId: String, environment: String) throws(StoreError) -> Int64? {
        try read { (connection) throws(StoreError) in
            try connection.query(
                "SELECT read_through FROM backfill_marks WHERE app_id = ? AND environment = ?",
                [.text(appId), .text(environment)]
            ).first?.first?.integerValue
        }
    }
}

extension Store {
    /// See `ReaderPool.backfillMark`.
    public func backfillMark(appId: String, environment: String) throws(StoreError) -> Int64? {
        try readers.backfillMark(appId: appId, environment: environment)
    }

    /// Records that the history of `appId` in `environment` has been read through `readThroughMs`;
    /// a mark already further on stays (two nodes, or a command beside the server, may finish
    /// runs in either order).
    public func advanceBackfillMark(
        appId: String, environment: String, readThroughMs: Int64, nowMs: Int64
    ) throws(StoreError) {
        try write { transaction in
            _ = try Self.advanceBackfillMark(appId, environment, readThroughMs, nowMs, in: transaction)
        }
    }

    /// `advanceBackfillMark`, without waiting: `completion` is told the mark once committed (this
    /// one, or one further on that stays).
    public func advanceBackfillMark(
        appId: String, environment: String, readThroughMs: Int64, nowMs: Int64,
        completion: @escaping @Sendable (Result<Int64, StoreError>) -> Void
    ) {
        let mark = Locked<Int64>(readThroughMs)
        write(
            { transaction in
                let now = try Self.advanceBackfillMark(appId, environment, readThroughMs, nowMs, in: transaction)
                mark.withLock { $0 = now }
            }, completion: { result in completion(result.map { mark.value }) })
    }

    /// Moves the mark on in `transaction`; the mark then.
    private static func advanceBackfillMark(
        _ appId: String, _ environment: String, _ readThroughMs: Int64, _ nowMs: Int64, in transaction: WriteTransaction
    ) throws -> Int64 {
        try transaction.write(
            """
            INSERT INTO backfill_marks (app_id, environment, read_through, updated_at) VALUES (?, ?, ?, ?)
            ON CONFLICT (app_id, environment) DO UPDATE SET
                read_through = CASE WHEN excluded.read_through > backfill_marks.read_through
                    THEN excluded.read_through ELSE backfill_marks.read_through END,
                updated_at = excluded.updated_at
            """, [.text(appId), .text(environment), .integer(readThroughMs), .integer(nowMs)])
        return try transaction.query(
            "SELECT read_through FROM backfill_marks WHERE app_id = ? AND environment = ?", [.text(appId), .text(environment)]
        ).first?.first?.integerValue ?? readThroughMs
    }
}

extension StoreReader {
    /// See `ReaderPool.backfillMark`.
    public func backfillMark(appId: String, environment: String) throws(StoreError) -> Int64? {
        try readers.backfillMark(appId: appId, environment: environment)
    }
}
