import Foundation
import Testing

@testable import Storage

/// The libpq adapter against the throwaway cluster `make test` starts.
@Suite(.enabled(if: PostgresTestDatabase.isAvailable)) struct PostgresConnectionTests {
    @Test func valuesGoInAndComeBackAsTheyWere() throws {
        let database = try PostgresTestDatabase()
        let connection = try database.connect()
        try connection.execute(script: "CREATE TABLE t (i BIGINT, r DOUBLE PRECISION, s TEXT, b BYTEA)")
        let blob = Data([0, 1, 2, 0xFF, 0, 0x5C, 0x78])
        let changed = try connection.run(
            "INSERT INTO t (i, r, s, b) VALUES (?, ?, ?, ?), (?, ?, ?, ?)",
            [
                .integer(.min), .real(2.5), .text("it's ? ü\u{1F600}"), .blob(blob),
                .null, .null, .null, .blob(Data()),
            ])
        #expect(changed == 2)
        let rows = try connection.query("SELECT i, r, s, b FROM t ORDER BY i NULLS LAST")
        #expect(
            rows == [
                [.integer(.min), .real(2.5), .text("it's ? ü\u{1F600}"), .blob(blob)],
                [.null, .null, .null, .blob(Data())],
            ])
        // Booleans come back as SQLite's 0 and 1.
        #expect(try connection.query("SELECT 1 = 1, 1 = 2") == [[.integer(1), .integer(0)]])
        // RETURNING, and a statement prepared once and run again.
        #expect(try connection.query("INSERT INTO t (i) VALUES (?) RETURNING i", [.integer(7)]) == [[.integer(7)]])
        #expect(try connection.query("INSERT INTO t (i) VALUES (?) RETURNING i", [.integer(8)]) == [[.integer(8)]])
        #expect(try connection.run("UPDATE t SET s = ? WHERE i >= ?", [.text("x"), .integer(7)]) == 2)
    }

    @Test func errorsSayWhatAndKeepTheConnectionUsable() throws {
        let database = try PostgresTestDatabase()
        let connection = try database.connect()
        try connection.execute(script: "CREATE TABLE u (k TEXT PRIMARY KEY)")
        try connection.run("INSERT INTO u (k) VALUES (?)", [.text("a")])
        let duplicate = #expect(throws: StoreError.self) { try connection.run("INSERT INTO u (k) VALUES (?)", [.text("a")]) }
        #expect(duplicate?.code == .invalid)
        #expect(duplicate?.message.contains("SQLSTATE 23505") == true)
        let syntax = #expect(throws: StoreError.self) { try connection.query("SELEC 1") }
        #expect(syntax?.message.contains("SQLSTATE 42601") == true)
        #expect(try connection.query("SELECT count(*) FROM u") == [[.integer(1)]])
        try connection.execute(script: "BEGIN")
        #expect(connection.isInTransaction)
        try connection.execute(script: "ROLLBACK")
        #expect(!connection.isInTransaction)
    }

    /// A wrong password or an unknown database: `.unavailable`, one line naming the server, never the password.
    @Test func aWrongPasswordOrDatabaseIsRefusedWithoutShowingThePassword() throws {
        let cluster = try #require(PostgresTestDatabase.cluster)
        var wrong = cluster
        wrong.password = "not-the-password-\(UUID().uuidString)"
        let refused = #expect(throws: StoreError.self) { try PostgresConnection(url: wrong) }
        #expect(refused?.code == .unavailable)
        #expect(refused?.message.contains("password authentication failed") == true, "\(refused?.message ?? "")")
        #expect(refused?.message.contains(wrong.password ?? "") == false)
        #expect(refused?.message.contains(cluster.password ?? "") == false)
        let absent = #expect(throws: StoreError.self) { try PostgresConnection(url: cluster.with(database: "rd_absent")) }
        #expect(absent?.message.contains("rd_absent") == true)
    }

    @Test(arguments: [
        ("08006", StoreError.Code.unavailable), ("57P01", .unavailable), ("40001", .busy), ("40P01", .busy),
        ("55P03", .busy), ("53100", .io), ("23505", .invalid), ("42P01", .invalid), ("XX001", .corrupt),
    ])
    func sqlStatesMapToTheStoresCodes(state: String, code: StoreError.Code) {
        #expect(PostgresConnection.code(sqlState: state) == code)
    }
}
