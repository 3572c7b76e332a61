import Glibc
import Testing

@testable import Storage

/// SQLite's read-only results name no file or folder: the error says what to check.
@Suite struct SQLiteResultTests {
    @Test(arguments: [
        (Int32(1544), "cannot create files in the database's folder"),  // SQLITE_READONLY_DIRECTORY
        (1032, "moved or deleted while open"),  // SQLITE_READONLY_DBMOVED
        (776, "cannot write the database file"),  // SQLITE_READONLY_ROLLBACK
        (8, "cannot write the database file"),  // SQLITE_READONLY
    ])
    func readOnlyResultsSayWhatToCheck(code: Int32, hint: String) {
        #expect(StoreError.hint(forSQLite: code).contains(hint))
        #expect(StoreError.code(forSQLite: code) == .io)
    }

    @Test func otherResultsAddNothing() {
        for code: Int32 in [5, 11, 13, 14, 266, 2067] { #expect(StoreError.hint(forSQLite: code).isEmpty, "\(code)") }
    }

    /// A write refused for room says so, whatever SQLite's own words ("database or disk is full",
    /// "disk I/O error" under a file size limit).
    @Test func aWriteWithNoRoomSaysSo() {
        let full = StoreError(sqlite: 13, connection: nil, context: "COMMIT")  // SQLITE_FULL
        #expect(full.isDiskFull)
        #expect(full.message.contains("(no room: the disk is full, or a file size limit was reached)"), "\(full.message)")
        let busy = StoreError(sqlite: 5, connection: nil, context: "COMMIT")
        #expect(!busy.isDiskFull && !busy.message.contains("no room"))
    }

    /// SQLite's error number may be a later call's: a failed write under a file size limit
    /// (`ulimit -f`) names the limit, and says nothing of one the process does not have.
    @Test func aFailedWriteNamesTheFileSizeLimit() throws {
        var limit = rlimit()
        try #require(getrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0)
        let before = limit
        if limit.rlim_cur == rlim_t.max {
            let unlimited = StoreError(sqlite: StoreError.ioErrorWrite, connection: nil, context: "COMMIT")
            #expect(!unlimited.message.contains("ulimit"), "\(unlimited.message)")
            // A terabyte, for the moment it takes: no test writes that much.
            limit.rlim_cur = 1 << 40
            try #require(setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0)
        }
        let limited = StoreError(sqlite: StoreError.ioErrorWrite, connection: nil, context: "COMMIT")
        var restore = before
        setrlimit(Int32(RLIMIT_FSIZE.rawValue), &restore)
        #expect(
            limited.message.contains("at most \(limit.rlim_cur) bytes, its file size limit (ulimit -f)"), "\(limited.message)")
        let other = StoreError(sqlite: 10, connection: nil, context: "COMMIT")  // SQLITE_IOERR
        #expect(!other.message.contains("ulimit"))
    }
}
