/// Brings a PostgreSQL database's schema up to this build's, refusing one it must not touch.
///
/// Nodes starting together on one database migrate once: the whole check-and-apply runs in one
/// transaction under a transaction-scoped advisory lock, so a second node waits, then finds the
/// versions recorded and applies nothing.
struct PostgresMigrator {
    let connection: PostgresConnection

    /// The advisory lock key migrations take ("RDMIGRAT" in ASCII).
    static let lockKey: Int64 = 0x5244_4D49_4752_4154

    /// What `migrate` did: created the schema in an empty database, or brought an older one forward.
    struct Outcome: Sendable, Equatable {
        /// What changed in a schema made before; nil when it was current or is new.
        var upgrade: SchemaUpgrade?
        /// Whether this call found no schema and created it (under the lock: one node of several).
        var created: Bool
    }

    /// Creates the schema in an empty database, or applies the later migrations an older
    /// build's database lacks, in a transaction of its own; says which it did.
    @discardableResult
    func migrate() throws(StoreError) -> Outcome {
        try connection.execute(script: "BEGIN")
        do {
            let outcome = try migrateInTransaction()
            try connection.execute(script: "COMMIT")
            return outcome
        } catch {
            if connection.isInTransaction { try? connection.execute(script: "ROLLBACK") }
            throw StoreError(error.code, "migrating the PostgreSQL schema: \(error.message)")
        }
    }

    /// Takes the migrations' lock in the caller's open transaction, and creates or migrates the
    /// schema in it: the lock is held until the caller commits (`SQLiteToPostgres` copies its
    /// rows in the same transaction, so no node sees the new schema empty).
    func migrateInTransaction() throws(StoreError) -> Outcome {
        _ = try connection.query("SELECT pg_advisory_xact_lock(?)", [.integer(Self.lockKey)])
        let existing = try hasTable("schema_migrations")
        let versions: Set<Int64>
        if existing {
            versions = try requireKnownVersions()
        } else {
            try requireEmpty()
            try connection.execute(
                script: """
                    CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY, applied_at TEXT NOT NULL);
                    \(PostgresSchema.baseline)
                    """)
            try record(PostgresSchema.baselineVersion)
            versions = [PostgresSchema.baselineVersion]
        }
        let pending = PostgresSchema.later.filter { !versions.contains($0.version) }
        for migration in pending {
            try connection.execute(script: migration.sql)
            try record(migration.version)
        }
        var upgrade: SchemaUpgrade?
        if existing, !pending.isEmpty, let from = versions.max() {
            upgrade = SchemaUpgrade(from: from, to: PostgresSchema.currentVersion, migrations: pending.count)
        }
        return Outcome(upgrade: upgrade, created: !existing)
    }

    private func record(_ version: Int64) throws(StoreError) {
        try connection.run(
            "INSERT INTO schema_migrations (version, applied_at) VALUES (?, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'))",
            [.integer(version)])
    }

    /// Fails unless the schema is one this build reads, without changing anything: for a
    /// connection that only reads (`StoreReader`).
    func requireCurrent() throws(StoreError) {
        guard try hasTable("schema_migrations") else {
            throw StoreError(
                .invalid, "the database holds no RevenueDot schema (no schema_migrations table): revenuedot serve creates it")
        }
        let versions = try requireKnownVersions()
        if let newest = versions.max(), newest < PostgresSchema.currentVersion {
            throw StoreError(
                .invalid,
                "the database has schema version \(newest), older than this build's \(PostgresSchema.currentVersion): "
                    + "revenuedot serve brings it forward at its next start")
        }
    }

    /// Where the schema stands, without changing anything (`DatabaseProbe`).
    func state() throws(StoreError) -> SchemaState {
        guard try hasTable("schema_migrations") else {
            try requireEmpty()
            return .absent
        }
        let versions = try requireKnownVersions()
        let pending = PostgresSchema.later.filter { !versions.contains($0.version) }.count
        if pending > 0, let newest = versions.max() { return .older(version: newest, pending: pending) }
        return .current(version: PostgresSchema.currentVersion)
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

    /// Every recorded version must be one this build knows (up to `PostgresSchema.currentVersion`),
    /// and the baseline among them; returns them.
    @discardableResult
    private func requireKnownVersions() throws(StoreError) -> Set<Int64> {
        let versions = try connection.query("SELECT version FROM schema_migrations").compactMap { $0.first?.integerValue }
        if let newest = versions.max(), newest > PostgresSchema.currentVersion {
            throw StoreError(
                .invalid,
                "the database has schema version \(newest), which this build does not know (it knows up to "
                    + "\(PostgresSchema.currentVersion)); it was written by a newer RevenueDot: refusing to open it (run that build, or restore the backup taken "
                    + "before the upgrade: README \"Upgrading\")")
        }
        guard versions.contains(PostgresSchema.baselineVersion) else {
            throw StoreError(
                .invalid, "schema_migrations records no version this build can continue from: \(versions.sorted())")
        }
        return Set(versions)
    }
}
