/// What an engine's connection does for the transactions it lends (`WriteTransaction`,
/// `ReadTransaction`): run one statement, or run one query and return its rows. The store's
/// typed operations run their SQL through these transactions only, so an engine other than
/// SQLite lends the same two types over a connection of its own.
protocol StatementRunner: AnyObject {
    /// Runs one statement; returns how many rows it changed.
    func run(_ sql: String, _ arguments: [SQLValue]) throws(StoreError) -> Int
    /// Runs one query; returns its rows.
    func query(_ sql: String, _ arguments: [SQLValue]) throws(StoreError) -> [[SQLValue]]
}

extension SQLiteConnection: StatementRunner {}
