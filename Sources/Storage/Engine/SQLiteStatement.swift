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
    /// The bytes of every text and blob are first copied, one after another, into one buffer that
    /// lives until the statement has been reset, and bound from there in place (`SQLITE_STATIC`),
    /// so SQLite makes no copy of its own. Binding each value in place inside the closure that
    /// pins its bytes would spare that one copy but nest one closure per argument, and for the
    /// many arguments of a notification's row that costs more in reference counting than the copy.
    func withBindings<T>(_ values: [SQLValue], _ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard values.count == expected else {
            throw StoreError(.invalid, "\"\(StoreError.abbreviate(sql))\" takes \(expected) arguments, got \(values.count)")
        }
        check(sqlite3_clear_bindings(handle))
        var byteCount = 0
        for value in values {
            switch value {
            case .text(let text): byteCount += text.utf8.count
            case .blob(let data): byteCount += data.count
            case .null, .integer, .real: break
            }
        }
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: max(byteCount, 1), alignment: 1)
        defer { scratch.deallocate() }
        let result: Result<T, StoreError>
        if let failure = bind(values, copyingInto: scratch) {
            result = .failure(failure)
        } else {
            result = Result { () throws(StoreError) -> T in try body() }
            sqlite3_reset(handle)
        }
        // Before `scratch` goes: the statement lets go of the bytes bound from it.
        check(sqlite3_clear_bindings(handle))
        return try result.get()
    }

    /// Binds each of `values` to its parameter, texts and blobs from their copies in `scratch`;
    /// the error of the first that fails, if one does.
    private func bind(_ values: [SQLValue], copyingInto scratch: UnsafeMutableRawBufferPointer) -> StoreError? {
        var offset = 0
        for (index, value) in values.enumerated() {
            let position = Int32(index + 1)
            let status: Int32
            switch value {
            case .null:
                status = sqlite3_bind_null(handle, position)
            case .integer(let number):
                status = sqlite3_bind_int64(handle, position, number)
            case .real(let number):
                status = sqlite3_bind_double(handle, position, number)
            case .text(var text):
                let count = text.withUTF8 { utf8 in
                    precondition(offset + utf8.count <= scratch.count, "a text outgrew the size counted for it")
                    if let base = utf8.baseAddress {
                        (scratch.baseAddress! + offset).copyMemory(from: base, byteCount: utf8.count)
                    }
                    return utf8.count
                }
                // An empty text gets an address of its own: SQLite binds a NULL pointer as NULL.
                status =
                    count == 0
                    ? sqlite3_bind_text(handle, position, "", 0, CSQLite_transient())
                    : sqlite3_bind_text(
                        handle, position, (scratch.baseAddress! + offset).assumingMemoryBound(to: CChar.self), Int32(count), nil)
                offset += count
            case .blob(let data) where data.isEmpty:
                // An empty buffer has no base address, which SQLite would bind as NULL.
                status = sqlite3_bind_zeroblob(handle, position, 0)
            case .blob(let data):
                data.withUnsafeBytes { bytes in
                    (scratch.baseAddress! + offset).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
                }
                status = sqlite3_bind_blob(handle, position, scratch.baseAddress! + offset, Int32(data.count), nil)
                offset += data.count
            }
            guard status == SQLITE_OK else {
                return StoreError(
                    sqlite: status, connection: connection,
                    context: "bind argument \(index + 1) of \"\(StoreError.abbreviate(sql))\"")
            }
        }
        return nil
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
