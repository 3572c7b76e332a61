extension ReaderPool {
    /// The newest `signedDate` of the notifications stored for `appId` that claim `environment`
    /// (held ones included), nil when there is none: where a backfill of missed notifications
    /// starts.
    func newestNotificationSignedDate(appId: String, environment: String) throws(StoreError) -> Int64? {
        try read { (connection) throws(StoreError) in
            try connection.query(
                "SELECT max(signed_date) FROM notifications WHERE app_id = ? AND environment = ?",
                [.text(appId), .text(environment)]
            ).first?.first?.integerValue
        }
    }
}

extension Store {
    /// See `ReaderPool.newestNotificationSignedDate`.
    public func newestNotificationSignedDate(appId: String, environment: String) throws(StoreError) -> Int64? {
        try readers.newestNotificationSignedDate(appId: appId, environment: environment)
    }
}

extension StoreReader {
    /// See `ReaderPool.newestNotificationSignedDate`.
    public func newestNotificationSignedDate(appId: String, environment: String) throws(StoreError) -> Int64? {
        try readers.newestNotificationSignedDate(appId: appId, environment: environment)
    }
}
