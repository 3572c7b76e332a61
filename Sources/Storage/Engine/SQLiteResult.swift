import CSQLite
import Glibc

// MARK: - SQLite result codes to StoreError
//
// Part of the C adapter: only the files in this folder import CSQLite or see an OpaquePointer.

extension StoreError {
    /// The error for SQLite result `result`, with the connection's `sqlite3_errmsg` text when there is one.
    ///
    /// `context` says what was being done ("BEGIN IMMEDIATE", "open /path"), because SQLite's own
    /// message ("database is locked") does not.
    init(sqlite result: Int32, connection: OpaquePointer?, context: String) {
        let extended = connection.map { sqlite3_extended_errcode($0) } ?? result
        let detail = connection.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? Self.describe(result)
        let systemErrno = connection.map { sqlite3_system_errno($0) } ?? 0
        let full = result & 0xff == SQLITE_FULL || [ENOSPC, EDQUOT, EFBIG].contains(systemErrno)
        // SQLite says "disk I/O error" of a write a full disk or a file size limit refused; the
        // error number it keeps may be a later call's, so a failed write under a file size limit
        // names the limit.
        let room =
            full
            ? " (no room: the disk is full, or a file size limit was reached)"
            : extended == Self.ioErrorWrite ? Self.fileSizeLimitNote() : ""
        self.init(
            Self.code(forSQLite: result),
            "\(context): \(detail)\(room)\(Self.hint(forSQLite: extended)) [SQLite result code \(extended)]")
        isDiskFull = full
        isDamagedFile = Self.isDamage(forSQLite: result)
    }

    /// Whether an SQLite (primary or extended) result code says the database file is damaged.
    static func isDamage(forSQLite result: Int32) -> Bool {
        [SQLITE_CORRUPT, SQLITE_NOTADB].contains(result & 0xff)
    }

    /// A damaged database file, in words of its own (`isDamagedFile`).
    static func damagedFile(_ message: String) -> StoreError {
        var error = StoreError(.corrupt, message)
        error.isDamagedFile = true
        return error
    }

    /// What an operator can do about a result whose SQLite text names no file or folder: the
    /// read-only family, met when the user running RevenueDot may not write where it must.
    static func hint(forSQLite extended: Int32) -> String {
        guard extended & 0xff == SQLITE_READONLY else { return "" }
        // The extended codes are SQLITE_READONLY | (n << 8), macros Swift does not import.
        switch extended >> 8 {
        case 6: return " (this user cannot create files in the database's folder, where SQLite keeps its -wal and -shm files)"
        case 4: return " (the database file was moved or deleted while open)"
        default: return " (this user cannot write the database file, or its -wal and -shm files beside it)"
        }
    }

    /// SQLITE_IOERR_WRITE: SQLITE_IOERR | (3 << 8), a macro Swift does not import.
    static let ioErrorWrite = SQLITE_IOERR | (3 << 8)

    /// A note naming the process's file size limit (`ulimit -f`) when it has one, which a write
    /// past it fails with; empty when it has none.
    static func fileSizeLimitNote() -> String {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return "" }
        return " (this process may write files of at most \(limit.rlim_cur) bytes, its file size limit (ulimit -f): "
            + "a write past it fails)"
    }

    /// The English text SQLite gives for a result code, for when no connection holds a message.
    static func describe(_ result: Int32) -> String {
        sqlite3_errstr(result).map { String(cString: $0) } ?? "unknown SQLite result \(result)"
    }

    /// `sql` on one line and cut to a readable length, to say which statement failed.
    static func abbreviate(_ sql: String) -> String {
        let words = sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return words.count <= 100 ? words : words.prefix(100) + "…"
    }

    /// Maps an SQLite (primary or extended) result code to a stable `Code`.
    static func code(forSQLite result: Int32) -> Code {
        switch result & 0xff {
        case SQLITE_BUSY, SQLITE_LOCKED: .busy
        case SQLITE_CORRUPT, SQLITE_NOTADB: .corrupt
        case SQLITE_IOERR, SQLITE_FULL, SQLITE_READONLY, SQLITE_PROTOCOL: .io
        case SQLITE_CANTOPEN, SQLITE_NOMEM, SQLITE_PERM, SQLITE_AUTH, SQLITE_ABORT, SQLITE_INTERRUPT: .unavailable
        default: .invalid
        }
    }
}
