/// What an engine's connection does for the transactions it lends (`WriteTransaction`,
/// `ReadTransaction`): run one statement, or run one query and return its rows. The store's
/// typed operations run their SQL through these transactions only, so an engine other than
/// SQLite lends the same two types over a connection of its own.
protocol StatementRunner: AnyObject {
    /// Runs one statement; returns how many rows it changed.
    @discardableResult
    func run(_ sql: String, _ arguments: [SQLValue]) throws(StoreError) -> Int
    /// Runs one query; returns its rows.
    func query(_ sql: String, _ arguments: [SQLValue]) throws(StoreError) -> [[SQLValue]]
    /// Runs one statement whose outcome the caller does not read. An engine may send it without
    /// waiting (PostgreSQL's pipeline mode): its failure is then thrown by the next statement
    /// that waits, or by `flushSent`.
    func send(_ sql: String, _ arguments: [SQLValue]) throws(StoreError)
    /// Runs one query whose rows the caller reads later, from the result: an engine may send it
    /// without waiting, like `send`, and its rows are there once the statements sent ahead are
    /// read (by the next statement that waits, or `flushSent`), in the same round trip.
    func sendQuery(_ sql: String, _ arguments: [SQLValue]) throws(StoreError) -> PendingRows
    /// Waits for the statements sent ahead; throws the first that failed.
    func flushSent() throws(StoreError)
    /// Runs several queries; returns each one's rows, in order (on PostgreSQL in one round trip).
    func queryAll(_ statements: [(sql: String, arguments: [SQLValue])]) throws(StoreError) -> [[[SQLValue]]]
}

extension StatementRunner {
    func send(_ sql: String, _ arguments: [SQLValue]) throws(StoreError) { try run(sql, arguments) }
    func flushSent() throws(StoreError) {}
    func sendQuery(_ sql: String, _ arguments: [SQLValue]) throws(StoreError) -> PendingRows {
        PendingRows(rows: try query(sql, arguments))
    }
    func queryAll(_ statements: [(sql: String, arguments: [SQLValue])]) throws(StoreError) -> [[[SQLValue]]] {
        var answers: [[[SQLValue]]] = []
        for statement in statements { answers.append(try query(statement.sql, statement.arguments)) }
        return answers
    }

    /// Runs one statement without arguments.
    @discardableResult
    func run(_ sql: String) throws(StoreError) -> Int { try run(sql, []) }
    /// Runs one query without arguments.
    func query(_ sql: String) throws(StoreError) -> [[SQLValue]] { try query(sql, []) }
}

/// The rows of a query sent ahead (`StatementRunner.sendQuery`): nil until its round trip is
/// read, and for good if a statement before it failed.
final class PendingRows {
    var rows: [[SQLValue]]?

    init(rows: [[SQLValue]]? = nil) { self.rows = rows }

    /// The rows, once there.
    ///
    /// - Throws: `.invalid` when they are not: read before its round trip (a mistake in the
    ///   caller), or after a failure, which the statement that waited threw first.
    func answer(_ what: String) throws(StoreError) -> [[SQLValue]] {
        guard let rows else { throw StoreError(.invalid, "\(what) was not answered") }
        return rows
    }
}

/// A connection readers use (`ReaderPool`).
protocol ReaderConnection: StatementRunner {
    /// Begins a read-only transaction whose statements all see one snapshot of committed data.
    func beginSnapshot() throws(StoreError)
    /// False once the connection is broken (the server went away): the pool opens another.
    var isUsable: Bool { get }
}

extension SQLiteConnection: StatementRunner, ReaderConnection {
    func beginSnapshot() throws(StoreError) { try run("BEGIN", []) }
    var isUsable: Bool { true }
}

extension PostgresConnection: ReaderConnection {
    func flushSent() throws(StoreError) { try drainPipeline() }
    func beginSnapshot() throws(StoreError) { try execute(script: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") }
    var isUsable: Bool { isConnected }
}
