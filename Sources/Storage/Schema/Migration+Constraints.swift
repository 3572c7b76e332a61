// Migration 15: CHECK constraints that SQLite evaluates without a temporary B-tree.

import Foundation

extension Migration {
    /// The CHECK constraints that list three or more values spell them out as comparisons.
    ///
    /// For `x IN ('a', 'b', 'c')` SQLite builds a temporary B-tree of the list each time a
    /// statement runs (a list of one or two becomes comparisons). Every stored notification runs
    /// two statements checked by such a constraint (`notifications.state`, `applied_inputs.kind`),
    /// every webhook delivery one (`deliveries.status`), so with lists, creating and dropping those
    /// trees would be a large part of the storage writer's work.
    ///
    /// The constraints accept exactly the values they did; only the text of the table definitions
    /// changes, so no row is rewritten and a large database migrates at once.
    static let v15 = Migration(
        version: 15,
        name: "CHECK constraints without temporary B-trees",
        sql: "",
        rewrites: [
            ConstraintRewrite(
                table: "notifications", from: "CHECK (state IN ('received', 'applied', 'held', 'failed'))",
                to: "CHECK (state = 'received' OR state = 'applied' OR state = 'held' OR state = 'failed')"),
            ConstraintRewrite(
                table: "applied_inputs", from: "CHECK (kind IN ('notification', 'posted_transaction', 'timer'))",
                to: "CHECK (kind = 'notification' OR kind = 'posted_transaction' OR kind = 'timer')"),
            ConstraintRewrite(
                table: "deliveries", from: "CHECK (status IN ('pending', 'delivered', 'dead'))",
                to: "CHECK (status = 'pending' OR status = 'delivered' OR status = 'dead')"),
        ])
}

/// A change to the text of a table's constraint that accepts exactly the rows the old text did,
/// made in the stored schema without rebuilding the table.
///
/// This is SQLite's documented procedure for constraint changes that leave the on-disk content as
/// it is (ALTER TABLE, "making other kinds of table schema changes"): with `writable_schema` on,
/// update the table's `sql` in `sqlite_schema`, then increment `schema_version` so every
/// connection parses the schema again. It runs inside the migration's transaction; the new
/// definitions are parsed and checked before it ends, so a rewrite that would leave the schema
/// unreadable fails the migration and is rolled back.
struct ConstraintRewrite: Sendable, Equatable {
    let table: String
    let from: String
    let to: String

    /// Rewrites every table of `rewrites` whose definition holds its `from` text exactly once. A
    /// definition without it (a schema this build did not write) is left as it is: the old
    /// constraint is just as correct, only slower.
    /// Runs inside the caller's transaction (the migration's): outside one, each edit would commit
    /// on its own.
    static func apply(_ rewrites: [ConstraintRewrite], on connection: SQLiteConnection) throws(StoreError) {
        precondition(connection.isInTransaction, "constraint rewrites run inside the migration's transaction")
        guard let version = try connection.query("PRAGMA schema_version").first?.first?.integerValue else {
            throw StoreError(.unavailable, "PRAGMA schema_version gave no value")
        }
        var rewritten: [ConstraintRewrite] = []
        // Defensive mode would refuse the schema edit; it is put back as it was.
        let defensive = connection.isDefensive
        connection.isDefensive = false
        defer { connection.isDefensive = defensive }
        try connection.execute(script: "PRAGMA writable_schema = ON;")
        do throws(StoreError) {
            for rewrite in rewrites {
                guard let sql = try definition(of: rewrite.table, on: connection), sql.occurrences(of: rewrite.from) == 1
                else { continue }
                try connection.run(
                    "UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = ?",
                    [.text(sql.replacingOccurrences(of: rewrite.from, with: rewrite.to)), .text(rewrite.table)])
                rewritten.append(rewrite)
            }
            if !rewritten.isEmpty { try connection.execute(script: "PRAGMA schema_version = \(version + 1);") }
            try connection.execute(script: "PRAGMA writable_schema = OFF;")
        } catch {
            _ = try? connection.execute(script: "PRAGMA writable_schema = OFF;")
            throw error
        }
        // Reading the definitions back parses the whole schema again (its version changed).
        for rewrite in rewritten {
            let sql = try definition(of: rewrite.table, on: connection)
            guard let sql, sql.occurrences(of: rewrite.to) == 1, sql.occurrences(of: rewrite.from) == 0 else {
                throw StoreError(.unavailable, "the definition of \(rewrite.table) did not change as rewritten")
            }
        }
    }
}

extension ConstraintRewrite {
    /// The stored `CREATE TABLE` text of `table`, nil when there is no such table.
    fileprivate static func definition(of table: String, on connection: SQLiteConnection) throws(StoreError) -> String? {
        try connection.query("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", [.text(table)]).first?
            .first?.textValue
    }
}

extension String {
    /// How many times `part` occurs in this string, without overlaps.
    fileprivate func occurrences(of part: String) -> Int {
        components(separatedBy: part).count - 1
    }
}
