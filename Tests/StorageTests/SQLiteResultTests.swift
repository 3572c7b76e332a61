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
}
