import Foundation
import Testing

@testable import Storage

/// The connection's statement cache finds a statement by where its SQL's bytes are before hashing
/// the text: these check that text built at run time, which can sit where other text sat before,
/// always gets its own statement.
@Suite struct StatementCacheTests {
    /// Short SQL lives inside the `String` itself, so its bytes are reached through a temporary
    /// copy, at an address that is the same from one call to the next.
    @Test func shortTextBuiltAtRunTimeGetsItsOwnStatement() throws {
        let directory = try TemporaryDirectory()
        let connection = try SQLiteConnection(path: directory.databasePath, role: .writer)
        for round in 0..<3 {
            for number in 0..<100 {
                let sql = "SELECT \(number)"
                #expect(try connection.query(sql) == [[.integer(Int64(number))]], "round \(round)")
            }
        }
    }

    /// Longer SQL is on the heap: freed after each call, its memory is reused for the next text.
    @Test func longTextBuiltAtRunTimeGetsItsOwnStatement() throws {
        let directory = try TemporaryDirectory()
        let connection = try SQLiteConnection(path: directory.databasePath, role: .writer)
        for number in 0..<200 {
            let sql = "SELECT \(number) AS value, 'a label long enough to be stored on the heap' AS label"
            let rows = try connection.query(sql)
            #expect(rows.first?.first == .integer(Int64(number)))
        }
    }

    /// A literal asked for again, between other statements and after the cache was filled past
    /// its bound, still runs its own SQL.
    @Test func literalsKeepTheirStatementsAcrossEvictions() throws {
        let directory = try TemporaryDirectory()
        let connection = try SQLiteConnection(path: directory.databasePath, role: .writer)
        for number in 0..<150 {
            #expect(
                try connection.query("SELECT 'first literal, long enough for the heap check'") == [
                    [.text("first literal, long enough for the heap check")]
                ])
            _ = try connection.query("SELECT \(number) + 1000, 'filling the cache with other statements'")
            #expect(
                try connection.query("SELECT 'second literal, long enough for the heap check'") == [
                    [.text("second literal, long enough for the heap check")]
                ])
        }
    }
}
