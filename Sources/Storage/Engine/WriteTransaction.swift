import Subscriptions

/// The writer's open transaction, as lent to a `NotificationHandOff`.
///
/// Only valid during the `handOff` call that received it; afterwards every call throws `.invalid`.
/// Transaction control (`BEGIN`, `COMMIT`, `ROLLBACK`, `SAVEPOINT`, `RELEASE`) belongs to the
/// writer and is refused. Not `Sendable`: it wraps the writer thread's connection.
public final class WriteTransaction {
    private let connection: any StatementRunner
    private var isOpen = true
    /// The apps whose outbox work in this transaction changed (`noteOutboxChanged`).
    private(set) var outboxApps: Set<String> = []

    /// How tracking writes anonymous ids in this database (`DatabaseSettings`).
    public let anonymousIds: AnonymousIds

    init(connection: any StatementRunner, anonymousIds: AnonymousIds) {
        self.connection = connection
        self.anonymousIds = anonymousIds
    }

    /// Says that this work made deliveries of app `appId`, or changed one so that it or the
    /// customer's next event may be due: the commit then wakes that app's webhook workers
    /// (`CommittedBatch`).
    public func noteOutboxChanged(appId: String) {
        outboxApps.insert(appId)
    }

    /// Whether this work inserted events (`noteEventsWritten`).
    private(set) var wroteEvents = false

    /// Says that this work inserted events: after its commit the writer learns the highest
    /// position, which becomes readable by `/v1/events` once on disk (`DurableEvents`).
    public func noteEventsWritten() {
        wroteEvents = true
    }

    /// Ends the loan; called by the writer when `handOff` returns.
    func invalidate() {
        isOpen = false
    }

    /// Runs one statement and returns how many rows it changed (`sqlite3_changes`).
    @discardableResult
    @_spi(StoreSQL) public func execute(_ sql: String, _ arguments: [SQLValue] = []) throws(StoreError) -> Int {
        try check(sql)
        return try connection.run(sql, arguments)
    }

    /// Runs several queries and returns each one's rows, in order; on PostgreSQL in one round
    /// trip. Each sees everything written earlier in the transaction.
    @_spi(StoreSQL) public func queries(_ statements: [(sql: String, arguments: [SQLValue])]) throws(StoreError) -> [[[SQLValue]]]
    {
        for statement in statements { try check(statement.sql) }
        return try connection.queryAll(statements)
    }

    /// Whether `queries` sends its statements in one round trip (PostgreSQL).
    @_spi(StoreSQL) public var sendsQueriesTogether: Bool { connection is PostgresConnection }

    /// The database server's clock in UNIX milliseconds, read now, inside this transaction; nil
    /// on SQLite, where one node has the database and its clock is the only one.
    ///
    /// For leases several nodes judge: a claim written from one node's clock and judged by
    /// another's is cut short by any skew between them, and a time read before the transaction
    /// waited for the write lock is stale by that wait.
    public func databaseClockMs() throws(StoreError) -> Int64? {
        guard connection is PostgresConnection else { return nil }
        return try query("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint", []).first?.first?.integerValue
    }

    /// The time a claim (a lease several nodes judge) is taken or judged at: the database's
    /// clock where nodes share one (`databaseClockMs`), else `nowMs`.
    public func claimClockMs(else nowMs: Int64) throws(StoreError) -> Int64 { try databaseClockMs() ?? nowMs }

    /// Runs one statement whose outcome the caller does not need. On PostgreSQL it is sent
    /// without waiting for its answer, which comes with the next statement that waits: its
    /// failure fails the transaction then (the writer then applies each item alone). Reads later
    /// in the transaction see its writes either way.
    @_spi(StoreSQL) public func write(_ sql: String, _ arguments: [SQLValue] = []) throws(StoreError) {
        try check(sql)
        try connection.send(sql, arguments)
    }

    /// Runs one `INSERT … RETURNING id` and returns the new row's id.
    @_spi(StoreSQL) public func insert(returningId sql: String, _ arguments: [SQLValue] = []) throws(StoreError) -> Int64 {
        guard let id = try query(sql, arguments).first?.first?.integerValue else {
            throw StoreError(.invalid, "an insert returned no id: \(sql.prefix(60))")
        }
        return id
    }

    /// Runs one statement and returns its rows; it sees everything written earlier in the transaction.
    @_spi(StoreSQL) public func query(_ sql: String, _ arguments: [SQLValue] = []) throws(StoreError) -> [[SQLValue]] {
        try check(sql)
        return try connection.query(sql, arguments)
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }

    /// SQLite's and PostgreSQL's (`ABORT`, `START TRANSACTION`, `PREPARE TRANSACTION`).
    private static let controlKeywords: [String] = [
        "BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE", "ABORT", "START", "PREPARE",
    ]

    /// The statement's first word when it is one of `controlKeywords`, in any case; read from
    /// its bytes, without making a string (every statement of every hand-off comes through here).
    /// The first word is the first one SQLite reads: after spaces and comments (`-- ...` to the
    /// end of the line, `/* ... */`), which SQLite skips too; "/* x */ COMMIT" is a COMMIT.
    private static func transactionControl(_ sql: String) -> String? {
        var sql = sql
        return sql.withUTF8 { bytes in
            let start = firstWord(in: bytes)
            let word = bytes[start...].prefix(while: isLetter)
            return controlKeywords.first { keyword in
                keyword.utf8.count == word.count
                    && zip(keyword.utf8, word).allSatisfy { expected, byte in expected == byte & ~0x20 }
            }
        }
    }

    /// Where the statement's first token starts: past spaces and comments.
    private static func firstWord(in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var index = 0
        func at(_ offset: Int) -> UInt8? { index + offset < bytes.count ? bytes[index + offset] : nil }
        while let byte = at(0) {
            if byte == 0x20 || (0x09...0x0D).contains(byte) {
                index += 1
            } else if byte == UInt8(ascii: "-"), at(1) == UInt8(ascii: "-") {
                while let next = at(0), next != 0x0A { index += 1 }
            } else if byte == UInt8(ascii: "/"), at(1) == UInt8(ascii: "*") {
                index += 2
                while at(0) != nil, !(at(0) == UInt8(ascii: "*") && at(1) == UInt8(ascii: "/")) { index += 1 }
                index = min(index + 2, bytes.count)
            } else {
                break
            }
        }
        return index
    }

    private func check(_ sql: String) throws(StoreError) {
        guard isOpen else {
            throw StoreError(.invalid, "WriteTransaction used after its handOff call returned")
        }
        if let keyword = Self.transactionControl(sql) {
            throw StoreError(.invalid, "\(keyword) inside a hand-off: the writer owns the transaction")
        }
    }
}
