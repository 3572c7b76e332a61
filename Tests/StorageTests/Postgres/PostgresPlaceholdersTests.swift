import Testing

@testable import Storage

@Suite struct PostgresPlaceholdersTests {
    @Test(arguments: [
        ("SELECT 1", "SELECT 1"),
        ("INSERT INTO t (a, b) VALUES (?, ?)", "INSERT INTO t (a, b) VALUES ($1, $2)"),
        ("SELECT '?', \"col?\", ? FROM t WHERE x = 'it''s ?'", "SELECT '?', \"col?\", $1 FROM t WHERE x = 'it''s ?'"),
        ("SELECT ? -- a comment?\n, ?", "SELECT $1 -- a comment?\n, $2"),
        ("SELECT a - ? FROM t", "SELECT a - $1 FROM t"),
        ("SELECT ?1, ?2, ?1 WHERE x = ?12", "SELECT $1, $2, $1 WHERE x = $12"),
        ("SELECT ?", "SELECT $1"),
    ])
    func numbersEveryPlaceholderOutsideQuotesAndComments(sql: String, expected: String) {
        #expect(PostgresPlaceholders.numbered(sql) == expected)
    }
}
