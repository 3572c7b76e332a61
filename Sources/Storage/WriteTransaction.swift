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

    private static let controlKeywords: [String] = ["BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE"]

    /// Whether the statement's first word is one of `controlKeywords`, in any case; read from
    /// its bytes, without making a string (every statement of every hand-off comes through here).
    private static func isTransactionControl(_ sql: String) -> Bool {
        var sql = sql
        return sql.withUTF8 { bytes in
            guard let start = bytes.firstIndex(where: isLetter) else { return false }
            let word = bytes[start...].prefix(while: isLetter)
            return controlKeywords.contains { keyword in
                keyword.utf8.count == word.count
                    && zip(keyword.utf8, word).allSatisfy { expected, byte in expected == byte & ~0x20 }
            }
        }
    }

    private func check(_ sql: String) throws(StoreError) {
        guard isOpen else {
            throw StoreError(.invalid, "WriteTransaction used after its handOff call returned")
        }
        guard !Self.isTransactionControl(sql) else {
            let keyword = sql.drop { !$0.isLetter }.prefix { $0.isLetter }.uppercased()
            throw StoreError(.invalid, "\(keyword) inside a hand-off: the writer owns the transaction")
        }
    }
}
