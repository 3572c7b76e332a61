/// Brings a database's schema up to `Migration.all`, refusing one written by a newer build.
struct Migrator {
    let connection: SQLiteConnection
    let migrations: [Migration]

    init(connection: SQLiteConnection, migrations: [Migration] = Migration.all) {
        self.connection = connection
        self.migrations = migrations
    }

    /// Applies every missing migration, each in its own `BEGIN IMMEDIATE` transaction.
    ///
    /// Another process may be migrating the same file: the applied versions are read again once the
    /// write lock is held, so each migration runs exactly once.
    ///
    /// Returns what it did to a schema that was there (nil for a new database, or nothing to do).
    @discardableResult
    func migrate() throws(StoreError) -> SchemaUpgrade? {
        try requireRevenueDotsOrEmpty()
        try connection.execute(
            script: """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version INTEGER PRIMARY KEY,
                    applied_at TEXT NOT NULL
                );
                """)
        let applied = try appliedVersions()
        var done = 0
        for migration in migrations where !applied.contains(migration.version) {
            try connection.run("BEGIN IMMEDIATE")
            do {
                if try !appliedVersions().contains(migration.version) {
                    try apply(migration)
                    done += 1
                }
                try connection.run("COMMIT")
            } catch {
                if connection.isInTransaction { _ = try? connection.run("ROLLBACK") }
                throw error
            }
        }
        guard done > 0, let from = applied.max() else { return nil }
        return SchemaUpgrade(from: from, to: migrations.map(\.version).max() ?? from, migrations: done)
    }

    /// Refuses a database that holds tables but no `schema_migrations`: another program's file,
    /// which RevenueDot must not add its tables to. An empty file is a new database. Returns the
    /// names of its tables (SQLite's own left out).
    @discardableResult
    func requireRevenueDotsOrEmpty() throws(StoreError) -> [String] {
        let tables = try connection.query(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
        ).compactMap { $0.first?.textValue }
        guard !tables.isEmpty, !tables.contains("schema_migrations") else { return tables }
        throw StoreError(
            .invalid,
            "the file holds \(tables.count) table(s) but no RevenueDot schema (no schema_migrations table): "
                + "another program's database? refusing to add RevenueDot's tables to it")
    }

    /// For a connection that must leave the database as it is (`StoreReader`): fails unless the
    /// schema is exactly this build's, every migration applied and none it does not know.
    func requireCurrent() throws(StoreError) {
        let applied = try requireKnown()
        if let missing = migrations.map(\.version).filter({ !applied.contains($0) }).min() {
            throw StoreError(
                .invalid,
                "the database's schema is older than this build's (migration \(missing) of "
                    + "\(migrations.map(\.version).max() ?? 0) is not applied); a command that only reads does not "
                    + "migrate it: start revenuedot serve of this build once, which does")
        }
    }

    /// For a file that may become a server's database (`restore`): RevenueDot's schema, made by
    /// this build or an older one (serve migrates it forward). Returns the applied versions.
    @discardableResult
    func requireKnown() throws(StoreError) -> Set<Int64> {
        guard try hasMigrationsTable() else {
            throw StoreError(.invalid, "the file holds no RevenueDot schema (no schema_migrations table)")
        }
        let applied = try appliedVersions()
        // serve would apply every migration from the first, and fail on the tables already there.
        guard !applied.isEmpty else {
            throw StoreError(
                .invalid, "schema_migrations is empty: the file was not made by RevenueDot, or its history was lost")
        }
        return applied
    }

    /// Refuses a database holding a migration this build does not know (a newer build's); one
    /// without migrations, or with some still to apply, passes (`migrate` goes on with them).
    func requireNoUnknownVersions() throws(StoreError) {
        if try hasMigrationsTable() { _ = try appliedVersions() }
    }

    private func hasMigrationsTable() throws(StoreError) -> Bool {
        try !connection.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").isEmpty
    }

    /// The versions recorded in the database, after checking that this build knows all of them.
    private func appliedVersions() throws(StoreError) -> Set<Int64> {
        let applied = Set(try connection.query("SELECT version FROM schema_migrations").compactMap { $0.first?.integerValue })
        let known = Set(migrations.map(\.version))
        if let unknown = applied.subtracting(known).max() {
            throw StoreError(
                .invalid,
                "the database has schema version \(unknown), which this build does not know (it knows up to "
                    + "\(known.max() ?? 0)); it was written by a newer RevenueDot: refusing to open it (run that build, or restore the backup taken "
                    + "before the upgrade: README \"Upgrading\")")
        }
        return applied
    }

    private func apply(_ migration: Migration) throws(StoreError) {
        do {
            try connection.execute(script: migration.sql)
            if !migration.rewrites.isEmpty { try ConstraintRewrite.apply(migration.rewrites, on: connection) }
            try migration.data?(connection)
            try connection.run(
                "INSERT INTO schema_migrations (version, applied_at) VALUES (?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
                [.integer(migration.version)])
        } catch {
            throw StoreError(error.code, "migration \(migration.version) (\(migration.name)): \(error.message)")
        }
    }
}
