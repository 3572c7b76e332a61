/// Brings a PostgreSQL database's schema up to this build's, refusing one it must not touch.
///
/// Nodes starting together on one database migrate once: the whole check-and-apply runs in one
/// transaction under a transaction-scoped advisory lock, so a second node waits, then finds the
/// versions recorded and applies nothing.
struct PostgresMigrator {
    let connection: PostgresConnection

    /// The advisory lock key migrations take ("RDMIGRAT" in ASCII).
    static let lockKey: Int64 = 0x5244_4D49_4752_4154

    func migrate() throws(StoreError) {
        try connection.execute(script: "BEGIN")
        do {
            _ = try connection.query("SELECT pg_advisory_xact_lock(?)", [.integer(Self.lockKey)])
            if try hasTable("schema_migrations") {
                try requireKnownVersions()
            } else {
                try requireEmpty()
                try connection.execute(
                    script: """
                        CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY, applied_at TEXT NOT NULL);
                        \(PostgresSchema.baseline)
                        """)
                try connection.run(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES (?, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'))",
                    [.integer(PostgresSchema.baselineVersion)])
            }
            try connection.execute(script: "COMMIT")
        } catch {
            if connection.isInTransaction { try? connection.execute(script: "ROLLBACK") }
            throw StoreError(error.code, "migrating the PostgreSQL schema: \(error.message)")
        }
    }

    /// Fails unless the schema is one this build reads, without changing anything: for a
    /// connection that only reads (`StoreReader`).
    func requireCurrent() throws(StoreError) {
        guard try hasTable("schema_migrations") else {
            throw StoreError(
                .invalid, "the database holds no RevenueDot schema (no schema_migrations table): revenuedot serve creates it")
        }
        try requireKnownVersions()
    }

    /// Where the schema stands, without changing anything (`DatabaseProbe`).
    func state() throws(StoreError) -> SchemaState {
        guard try hasTable("schema_migrations") else {
            try requireEmpty()
            return .absent
        }
        try requireKnownVersions()
        return .current(version: PostgresSchema.baselineVersion)
    }

    private func hasTable(_ name: String) throws(StoreError) -> Bool {
        try connection.query("SELECT to_regclass(?) IS NOT NULL", [.text(name)]).first?.first == .integer(1)
    }

    /// A database without `schema_migrations` must hold no tables: one that does is not RevenueDot's.
    private func requireEmpty() throws(StoreError) {
        let tables =
            try connection.query(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()"
            ).first?.first?.integerValue ?? 0
        guard tables == 0 else {
            throw StoreError(
                .invalid,
                "the database holds \(tables) tables but no schema_migrations: it is not RevenueDot's; "
                    + "give RevenueDot a database of its own (CREATE DATABASE revenuedot)")
        }
    }

    /// Every recorded version must be one this build knows (`PostgresSchema.baselineVersion`).
    private func requireKnownVersions() throws(StoreError) {
        let versions = try connection.query("SELECT version FROM schema_migrations").compactMap { $0.first?.integerValue }
        if let newest = versions.max(), newest > PostgresSchema.baselineVersion {
            throw StoreError(
                .invalid,
                "the database has schema version \(newest), which this build does not know (it knows up to "
                    + "\(PostgresSchema.baselineVersion)); it was written by a newer RevenueDot: refusing to open it (run that build, or restore the backup taken "
                    + "before the upgrade: README \"Upgrading\")")
        }
        guard versions.contains(PostgresSchema.baselineVersion) else {
            throw StoreError(
                .invalid, "schema_migrations records no version this build can continue from: \(versions.sorted())")
        }
    }
}
