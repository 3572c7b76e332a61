/// A read-only view of committed data, lent to `Store.read`'s body.
///
/// Not `Sendable`: it wraps one reader connection for the duration of the call.
public struct ReadTransaction {
    let connection: any StatementRunner

    /// Runs one query and returns its rows.
    @_spi(StoreSQL) public func query(_ sql: String, _ arguments: [SQLValue] = []) throws(StoreError) -> [[SQLValue]] {
        try connection.query(sql, arguments)
    }
}
