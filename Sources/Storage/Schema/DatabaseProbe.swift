import Foundation

/// Where a database's schema stands for this build.
public enum SchemaState: Sendable, Equatable {
    /// No RevenueDot schema yet (no SQLite file, or an empty PostgreSQL database): the first
    /// start of `serve` creates it.
    case absent
    /// Every migration this build has is applied; `version` is the newest.
    case current(version: Int64)
    /// Made by an older build: `serve` applies `pending` migrations at its next start.
    case older(version: Int64, pending: Int)
}

/// Looks at a configured database without changing it (`revenuedot check-config`): reachable,
/// RevenueDot's, and at a schema this build can serve. Throws what `serve` would fail with.
public enum DatabaseProbe {
    /// The SQLite database at `path`; absent when there is no file yet and its directory lets
    /// `serve` create one, or the file holds no table yet.
    public static func sqlite(path: String) throws(StoreError) -> SchemaState {
        // `serve` creates or writes the file, its WAL and shared-memory files and its lock file.
        if let unwritable = SQLiteFiles.unwritable(path) { throw StoreError(.unavailable, unwritable) }
        guard FileManager.default.fileExists(atPath: path) else { return .absent }
        // `serve` refuses a file with a second name (its lock would not cover the other).
        if let secondName = DatabaseLock.secondNameProblem(path) { throw StoreError(.unavailable, secondName) }
        // With no server on it and no WAL beside it, the file is read as it stands: a read-only
        // connection would leave WAL and shared-memory files behind, and check-config changes nothing.
        let quiet =
            !DatabaseLock.isHeldByAnother(databasePath: path)
            && ![path + "-wal", path + "-shm"].contains { FileManager.default.fileExists(atPath: $0) }
        let connection = try SQLiteConnection(path: path, role: quiet ? .immutable : .readOnly)
        let migrator = Migrator(connection: connection)
        // An empty file (made ahead with the service's owner, say), or one a first start left
        // with nothing but an empty migrations table (stopped before its first migration), is a
        // new database to serve.
        let tables = try migrator.requireRevenueDotsOrEmpty()
        if tables.isEmpty { return .absent }
        if tables == ["schema_migrations"],
            try connection.query("SELECT 1 FROM schema_migrations LIMIT 1").isEmpty
        {
            return .absent
        }
        let applied = try migrator.requireKnown()
        let pending = Migration.all.filter { !applied.contains($0.version) }.count
        let version = applied.max() ?? 0
        return pending == 0 ? .current(version: version) : .older(version: version, pending: pending)
    }

    /// The PostgreSQL database at `url`, in a read-only session.
    public static func postgres(url: PostgresURL) throws(StoreError) -> SchemaState {
        let connection = try PostgresConnection(url: url)
        try connection.execute(script: "SET default_transaction_read_only = on")
        return try PostgresMigrator(connection: connection).state()
    }
}
