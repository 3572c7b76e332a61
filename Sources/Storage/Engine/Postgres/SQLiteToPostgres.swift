import Crypto
import Foundation

/// Copies a SQLite database into an empty PostgreSQL one (`revenuedot migrate-db`): every table,
/// raw notifications, posted transactions, derived state, the outbox with its delivery status,
/// rejects; then checks that each table holds as many rows on both sides, with the same digest.
///
/// The source is read in one transaction (a consistent snapshot) under its `DatabaseLock`, so no
/// server has it during the copy: what it stored after the snapshot would not be copied. The
/// target must hold no rows.
/// The whole copy, the schema's creation included, is one PostgreSQL transaction under the
/// migrations' lock, committed only once every table is checked: a copy interrupted or failed
/// (Ctrl-C, a lost session, a row PostgreSQL refuses) leaves no row behind, ready to copy into
/// again, never a half-filled database a server would start on. Each table is copied in
/// primary-key order, a batch of rows at a time; identity columns keep their values, and their
/// sequences continue after them.
package enum SQLiteToPostgres {
    /// Rows read from SQLite at a time.
    static let batch = 500

    /// What was copied: rows per table, and the digest both sides gave.
    package struct Report: Sendable {
        package var tables: [(name: String, rows: Int, digest: String)]
        /// Why the source's lock could not be held during the copy, when it could not.
        package var unlocked: String?
    }

    /// Copies `sqlitePath` into the database at `url`, telling `copying` each table's name as
    /// its copy starts.
    ///
    /// - Throws: `.invalid` for a source in use by a server, or a target that is not empty (both
    ///   left as they were); `.corrupt` when a table's count or digest differs after the copy.
    package static func copy(
        from sqlitePath: String, to url: PostgresURL, copying: (String) -> Void = { _ in }
    ) throws(StoreError) -> Report {
        // Held to the end: a server started on the source during the copy would store what the
        // snapshot does not hold, lost at the switch to PostgreSQL. A lock file this user cannot
        // write (another user's) is held shared, which keeps a server out as well; a source
        // with none that can be made (a read-only copy) is copied without, and the report says so.
        var lock: DatabaseLock?
        var shared: Int32?
        var unlocked: String?
        do { lock = try DatabaseLock(databasePath: sqlitePath) } catch {
            shared = DatabaseLock.holdShared(databasePath: sqlitePath)
            if shared == nil {
                if let holder = DatabaseLock.holderProblem(databasePath: sqlitePath) {
                    throw StoreError(.invalid, holder + "; stop it first, so that nothing it stores is left behind")
                }
                unlocked = error.message
            }
        }
        // The source left as it was found: a lock file this copy made goes with it.
        defer {
            lock?.discard()
            if let shared { close(shared) }
        }
        let source = try SQLiteConnection(path: sqlitePath, role: .readOnly)
        try Migrator(connection: source).requireCurrent()
        // The target alone, as a replay has it: a node running on it would serve, and store
        // into, a database the copy is filling (its rows in among the copied ones).
        let target = try PostgresConnection(url: url, use: .exclusive)
        let tables = try tableNames(source)
        try source.run("BEGIN")
        defer { _ = try? source.run("COMMIT") }
        try target.execute(script: "BEGIN")
        do throws(StoreError) {
            // Reading a table back and hashing it (a million payloads) keeps the session idle in
            // its transaction longer than a node may be; nothing waits on this one but nodes
            // starting, which are meant to.
            try target.execute(script: "SET LOCAL idle_in_transaction_session_timeout = 0")
            // The schema is made in the copy's transaction, under the migrations' lock: a server
            // starting on the target meanwhile waits for the commit, and then finds every row,
            // instead of serving the empty schema.
            _ = try PostgresMigrator(connection: target).migrateInTransaction()
            // A node started on the empty target has made its choices; the copy's come from the source.
            try DatabaseSettings.forget(on: target)
            for table in tables {
                if let rows = try target.query("SELECT count(*) FROM \(table)").first?.first?.integerValue, rows > 0 {
                    throw StoreError(
                        .invalid,
                        "\(url) already holds \(rows) row\(rows == 1 ? "" : "s") in \(table): migrate-db copies into an "
                            + "empty database only (drop and create it again to copy anew)")
                }
            }
            var report = try copyTables(tables, from: source, to: target, copying: copying)
            report.unlocked = unlocked
            try target.execute(script: "COMMIT")
            return report
        } catch {
            try? target.execute(script: "ROLLBACK")
            throw error
        }
    }

    /// Copies and checks every table, in the target's open transaction.
    private static func copyTables(
        _ tables: [String], from source: SQLiteConnection, to target: PostgresConnection, copying: (String) -> Void
    ) throws(StoreError) -> Report {
        var report = Report(tables: [])
        for table in tables {
            copying(table)
            let columns = try source.query("SELECT name, pk, type FROM pragma_table_info(?) ORDER BY cid", [.text(table)])
            let names = columns.compactMap { $0[0].textValue }
            let key = columns.filter { ($0[1].integerValue ?? 0) > 0 }.sorted {
                ($0[1].integerValue ?? 0) < ($1[1].integerValue ?? 0)
            }
            .compactMap { $0[0].textValue }
            let copied = try copyRows(of: table, columns: names, key: key, from: source, to: target)
            let theirs = try digest(of: table, columns: names, from: target)
            guard theirs.rows == copied.rows, theirs.digest == copied.digest else {
                throw StoreError(
                    .corrupt,
                    "\(table): \(copied.rows) rows read, \(theirs.rows) in PostgreSQL, digests \(copied.digest.prefix(12)) and "
                        + "\(theirs.digest.prefix(12)) differ")
            }
            // A SQLite row id (INTEGER PRIMARY KEY) is an identity column in PostgreSQL.
            let identity = columns.filter { ($0[1].integerValue ?? 0) > 0 }
            if identity.count == 1, identity[0][2] == .text("INTEGER") {
                _ = try target.query(
                    "SELECT setval(pg_get_serial_sequence('\(table)', '\(key[0])'), coalesce(max(\(key[0])), 1), max(\(key[0])) IS NOT NULL) FROM \(table)"
                )
            }
            report.tables.append((table, copied.rows, copied.digest))
        }
        // Statistics for the planner now, rather than when autovacuum comes round to the tables
        // a bulk copy filled: the nodes that start next plan their first statements with them.
        try target.execute(script: "ANALYZE")
        return report
    }

    /// The tables to copy, a table another's foreign key references before that one (by name
    /// otherwise), as SQLite's `foreign_key_list` gives the references.
    private static func tableNames(_ source: SQLiteConnection) throws(StoreError) -> [String] {
        let names = try source.query(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'schema_migrations' ORDER BY name"
        ).compactMap { $0.first?.textValue }
        var references: [String: Set<String>] = [:]
        for name in names {
            let referenced = try source.query("SELECT \"table\" FROM pragma_foreign_key_list(?)", [.text(name)])
            references[name] = Set(referenced.compactMap { $0.first?.textValue }).subtracting([name])
        }
        var ordered: [String] = []
        func visit(_ name: String, _ path: Set<String>) {
            guard !ordered.contains(name), !path.contains(name) else { return }
            for referenced in (references[name] ?? []).sorted() where references[referenced] != nil {
                visit(referenced, path.union([name]))
            }
            ordered.append(name)
        }
        for name in names { visit(name, []) }
        return ordered
    }

    /// Copies every row in key order, a batch at a time; returns the count and digest read.
    private static func copyRows(
        of table: String, columns: [String], key: [String], from source: SQLiteConnection, to target: PostgresConnection
    ) throws(StoreError) -> (rows: Int, digest: String) {
        let list = columns.joined(separator: ", ")
        let insert =
            "INSERT INTO \(table) (\(list)) VALUES (\(Array(repeating: "?", count: columns.count).joined(separator: ", ")))"
        let keyList = key.joined(separator: ", ")
        let keyPlaceholders = Array(repeating: "?", count: key.count).joined(separator: ", ")
        let keyIndexes = key.compactMap { columns.firstIndex(of: $0) }
        var digest = RowSetDigest()
        var after: [SQLValue]?
        while true {
            let rows = try source.query(
                "SELECT \(list) FROM \(table)" + (after == nil ? "" : " WHERE (\(keyList)) > (\(keyPlaceholders))")
                    + " ORDER BY \(keyList) LIMIT ?",
                (after ?? []) + [.integer(Int64(batch))])
            guard let last = rows.last else { break }
            do throws(StoreError) {
                for row in rows { try target.send(insert, row) }
            } catch {
                throw StoreError(error.code, "copying \(table): \(error.message)")
            }
            for row in rows { digest.add(row) }
            after = keyIndexes.map { last[$0] }
        }
        return (digest.rows, digest.hex)
    }

    /// Reads the table back through a cursor, a batch at a time, so memory stays bounded on a
    /// table of millions of rows.
    private static func digest(
        of table: String, columns: [String], from target: PostgresConnection
    ) throws(StoreError) -> (rows: Int, digest: String) {
        try target.execute(
            script: "DECLARE revenuedot_copy_check NO SCROLL CURSOR FOR SELECT \(columns.joined(separator: ", ")) FROM \(table)")
        var digest = RowSetDigest()
        while true {
            let rows = try target.query("FETCH \(batch) FROM revenuedot_copy_check")
            guard !rows.isEmpty else { break }
            for row in rows { digest.add(row) }
        }
        try target.execute(script: "CLOSE revenuedot_copy_check")
        return (digest.rows, digest.hex)
    }
}
