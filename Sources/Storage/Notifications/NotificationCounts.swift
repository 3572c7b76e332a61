/// Counts over stored notifications, for `/metrics` and backups.
public enum NotificationCounts {
    /// How many notifications are held (another bundle or environment), waiting for a
    /// configuration fix. The partial index of notifications not applied serves it (SQLite needs
    /// its condition spelled out to use it): cheap however many are stored.
    public static func held(from rows: some RowReader) throws(StoreError) -> Int {
        let sql = "SELECT count(*) FROM notifications WHERE state = 'held' AND state != 'applied'"
        return Int(try rows.query(sql, []).first?.first?.integerValue ?? 0)
    }

    /// How many notifications are stored (a backup's summary).
    static func stored(in connection: any StatementRunner) throws(StoreError) -> Int {
        Int(try connection.query("SELECT count(*) FROM notifications", []).first?.first?.integerValue ?? 0)
    }
}
