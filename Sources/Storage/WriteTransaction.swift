/// The writer's open transaction, as lent to a `NotificationHandOff`.
///
/// Only valid during the `handOff` call that received it; afterwards every call throws `.invalid`.
/// Transaction control (`BEGIN`, `COMMIT`, `ROLLBACK`, `SAVEPOINT`, `RELEASE`) belongs to the
/// writer and is refused. Not `Sendable`: it wraps the writer thread's connection.
public final class WriteTransaction {
    private let connection: SQLiteConnection
    private var isOpen = true

    init(connection: SQLiteConnection) {
        self.connection = connection
    }

    /// Ends the loan; called by the writer when `handOff` returns.
    func invalidate() {
        isOpen = false
    }

    /// Runs one statement and returns how many rows it changed (`sqlite3_changes`).
    @discardableResult
    public func execute(_ sql: String, _ arguments: [SQLValue] = []) throws(StoreError) -> Int {
        try check(sql)
        return try connection.run(sql, arguments)
    }

    /// Runs one statement and returns its rows; it sees everything written earlier in the transaction.
    public func query(_ sql: String, _ arguments: [SQLValue] = []) throws(StoreError) -> [[SQLValue]] {
        try check(sql)
        return try connection.query(sql, arguments)
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }

    private static let controlKeywords: Set<String> = ["BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE"]

    private func check(_ sql: String) throws(StoreError) {
        guard isOpen else {
            throw StoreError(.invalid, "WriteTransaction used after its handOff call returned")
        }
        // The first word only: splitting the whole statement would cost more than running it.
        let keyword = sql.utf8.drop { !Self.isLetter($0) }.prefix { Self.isLetter($0) }.prefix(9)
            .map { Character(Unicode.Scalar($0)) }.reduce(into: "") { $0.append($1) }.uppercased()
        guard !Self.controlKeywords.contains(keyword) else {
            throw StoreError(.invalid, "\(keyword) inside a hand-off: the writer owns the transaction")
        }
    }
}
