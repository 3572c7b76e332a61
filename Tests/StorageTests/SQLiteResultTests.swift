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
}
