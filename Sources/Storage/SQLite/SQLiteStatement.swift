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

    /// Binds `values` to parameters 1...n, runs `body` (which steps the statement), then resets
    /// the statement and clears the bindings.
    ///
    /// Text and blobs are bound in place (`SQLITE_STATIC`): SQLite reads them while `body` steps,
    /// inside the closures that pin their bytes, and the statement lets go of them before those
    /// closures end. A 3 KiB row is then copied once, into its page, instead of first into a C
    /// string and again into SQLite's own copy.
    func withBindings<T>(_ values: [SQLValue], _ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard values.count == expected else {
            throw StoreError(.invalid, "\"\(StoreError.abbreviate(sql))\" takes \(expected) arguments, got \(values.count)")
        }
        check(sqlite3_clear_bindings(handle))
        return try bind(values, from: 0, body).get()
    }

    /// Binds `values[index...]`, each inside the closure that pins its bytes, then runs `body`
    /// and releases the statement's hold on them.
    private func bind<T>(
        _ values: [SQLValue], from index: Int, _ body: () throws(StoreError) -> T
    ) -> Result<T, StoreError> {
        guard index < values.count else {
            let result = Result<T, StoreError> { () throws(StoreError) -> T in try body() }
            sqlite3_reset(handle)
            check(sqlite3_clear_bindings(handle))
            return result
        }
        let position = Int32(index + 1)
        let bound: Int32
        switch values[index] {
        case .null:
            bound = sqlite3_bind_null(handle, position)
        case .integer(let number):
            bound = sqlite3_bind_int64(handle, position, number)
        case .real(let number):
            bound = sqlite3_bind_double(handle, position, number)
        case .text(var text):
            return text.withUTF8 { utf8 in
                // An empty buffer may have no address, which SQLite would bind as NULL.
                let status =
                    utf8.isEmpty
                    ? sqlite3_bind_text(handle, position, "", 0, CSQLite_transient())
                    : utf8.withMemoryRebound(to: CChar.self) {
                        sqlite3_bind_text(handle, position, $0.baseAddress, Int32($0.count), nil)
                    }
                return next(status, values, index, body)
            }
        case .blob(let data) where data.isEmpty:
            // An empty buffer has no base address, which SQLite would bind as NULL.
            bound = sqlite3_bind_zeroblob(handle, position, 0)
        case .blob(let data):
            return data.withUnsafeBytes { bytes in
                next(sqlite3_bind_blob(handle, position, bytes.baseAddress, Int32(bytes.count), nil), values, index, body)
            }
        }
        return next(bound, values, index, body)
    }

    /// After binding `values[index]` with `status`: the rest, or the error.
    private func next<T>(
        _ status: Int32, _ values: [SQLValue], _ index: Int, _ body: () throws(StoreError) -> T
    ) -> Result<T, StoreError> {
        guard status == SQLITE_OK else {
            check(sqlite3_clear_bindings(handle))
            return .failure(
                StoreError(
                    sqlite: status, connection: connection,
                    context: "bind argument \(index + 1) of \"\(StoreError.abbreviate(sql))\""))
        }
        return bind(values, from: index + 1, body)
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
