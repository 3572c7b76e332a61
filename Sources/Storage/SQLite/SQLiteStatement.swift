import CSQLite
import Foundation

/// One prepared SQLite statement (`sqlite3_stmt *`), finalized when the object goes away.
///
/// Part of the C adapter. A statement belongs to its connection's owner and is used by one thread
/// at a time; it is reset after every use so it never holds a read snapshot open.
final class SQLiteStatement {
    private let handle: OpaquePointer
    private let connection: OpaquePointer
    let sql: String

    /// Compiles `sql`, which must hold exactly one statement.
    ///
    /// `persistent` tells SQLite the statement will be reused many times (statement cache).
    init(connection: OpaquePointer, sql: String, persistent: Bool) throws(StoreError) {
        var statement: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let result = sql.withCString { text in
            let status = sqlite3_prepare_v3(connection, text, -1, flags, &statement, &tail)
            // Anything after the first statement would be silently ignored by SQLite: refuse it.
            if status == SQLITE_OK, let tail, !Self.isBlank(tail) { return SQLITE_MISUSE }
            return status
        }
        guard result == SQLITE_OK, let statement else {
            if result == SQLITE_MISUSE {
                sqlite3_finalize(statement)  // Returns the prepare result again; nothing new to check.
                throw StoreError(.invalid, "prepare: more than one SQL statement in \"\(StoreError.abbreviate(sql))\"")
            }
            throw StoreError(sqlite: result, connection: connection, context: "prepare \"\(StoreError.abbreviate(sql))\"")
        }
        self.handle = statement
        self.connection = connection
        self.sql = sql
    }

    deinit {
        // sqlite3_finalize returns the error of the last step, already reported by `step()`.
        sqlite3_finalize(handle)
    }

    // MARK: - Binding

    /// Binds `values` to parameters 1...n, after clearing any previous bindings.
    func bind(_ values: [SQLValue]) throws(StoreError) {
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard values.count == expected else {
            throw StoreError(.invalid, "\"\(StoreError.abbreviate(sql))\" takes \(expected) arguments, got \(values.count)")
        }
        check(sqlite3_clear_bindings(handle))
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let result: Int32
            switch value {
            case .null:
                result = sqlite3_bind_null(handle, index)
            case .integer(let number):
                result = sqlite3_bind_int64(handle, index, number)
            case .real(let number):
                result = sqlite3_bind_double(handle, index, number)
            case .text(let text):
                result = sqlite3_bind_text(handle, index, text, Int32(text.utf8.count), CSQLite_transient())
            case .blob(let data) where data.isEmpty:
                // An empty buffer has no base address, which SQLite would bind as NULL.
                result = sqlite3_bind_zeroblob(handle, index, 0)
            case .blob(let data):
                result = data.withUnsafeBytes { bytes in
                    sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), CSQLite_transient())
                }
            }
            guard result == SQLITE_OK else {
                throw StoreError(
                    sqlite: result, connection: connection, context: "bind argument \(index) of \"\(StoreError.abbreviate(sql))\""
                )
            }
        }
    }

    // MARK: - Stepping

    /// Advances to the next row: true when a row is available, false when the statement is done.
    func step() throws(StoreError) -> Bool {
        let result = sqlite3_step(handle)
        switch result {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw StoreError(sqlite: result, connection: connection, context: StoreError.abbreviate(sql))
        }
    }

    /// Makes the statement ready to run again and releases what it holds (read snapshot, bindings).
    func reset() {
        // sqlite3_reset repeats the error of the last step, which `step()` already reported.
        sqlite3_reset(handle)
        check(sqlite3_clear_bindings(handle))
    }

    /// The current row's values.
    func row() -> [SQLValue] {
        (0..<sqlite3_column_count(handle)).map(column)
    }

    private func column(_ index: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER:
            return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT:
            return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT:
            // Text first, then its length, as SQLite documents; the length covers embedded NULs.
            guard let text = sqlite3_column_text(handle, index) else { return .text("") }
            let count = Int(sqlite3_column_bytes(handle, index))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let bytes = sqlite3_column_blob(handle, index)
            let count = Int(sqlite3_column_bytes(handle, index))
            guard let bytes, count > 0 else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default:
            return .null
        }
    }

    // MARK: - Helpers

    /// sqlite3_clear_bindings has no failure mode in practice; a non-OK result is a programming error.
    private func check(_ result: Int32) {
        assert(result == SQLITE_OK, "sqlite3_clear_bindings returned \(result)")
    }

    private static func isBlank(_ text: UnsafePointer<CChar>) -> Bool {
        String(cString: text).allSatisfy { $0.isWhitespace || $0 == ";" }
    }
}
