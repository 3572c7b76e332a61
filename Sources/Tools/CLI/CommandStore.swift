import Foundation
import Server
import Storage

/// What commands that read or change storage start with: the configuration and its store, on
/// either engine.
///
/// On SQLite one process writes the file: a command that applies inputs is refused, or goes
/// through the running server, while a server has it (`servingAddress`). On PostgreSQL every node and
/// command shares the database (each write transaction takes the cluster's write lock, and a
/// node's caches check the very rows they read), so commands apply inputs themselves beside the
/// nodes; only `replay` must have the database alone (`Store(postgres:exclusive:)`).
enum CommandStore {
    /// Where the running server that has the configuration's SQLite database answers, as it
    /// wrote in the database's lock: nil when no process has it (and always on PostgreSQL).
    /// Throws a one-line error when another command has it (an import, a replay): a command
    /// goes through a server only, and the one the configuration names may serve another
    /// database.
    static func servingAddress(_ config: RevenueDotConfig, for action: String) throws -> ListenAddress? {
        guard case .sqlite(let path) = config.database, let holder = DatabaseLock.holder(databasePath: path) else {
            return nil
        }
        guard let serving = holder.serving else {
            let who = holder.pid.map { " (pid \($0))" } ?? ""
            throw CommandError(
                "\(path) is in use by another revenuedot process\(who) that serves no requests (a command, or serve "
                    + "still starting): wait for it to end, or to serve, to \(action)")
        }
        return ListenAddress(host: serving.host, port: serving.port)
    }

    /// Opens the configuration's database to apply inputs to it (`import`, `reconcile`,
    /// `backfill`), with the subscription logic's hand-off; on SQLite the only writer, refused
    /// while a server has it. The database must exist and hold the schema, as for `open`.
    /// `command` names the command in the line saying the schema was brought forward.
    static func openApplying(_ config: RevenueDotConfig, to action: String, command: String) throws -> Store {
        let handOff = LedgerHandOff(config: config, cache: LedgerCache())
        switch config.database {
        case .sqlite(let path):
            guard !DatabaseLock.isHeldByAnother(databasePath: path) else {
                throw CommandError("\(path) is in use by a running server: stop it to \(action)")
            }
            try requireDatabase(config)
            return try opening(config, command: command) { () throws(StoreError) in
                try Store(path: path, handOff: handOff, exclusive: true)
            }
        case .postgres(let url):
            try requireDatabase(config)
            return try opening(config, command: command) { () throws(StoreError) in try Store(postgres: url, handOff: handOff) }
        }
    }

    /// Loads `--config` (default `revenuedot.json`) and opens its database for reading only
    /// (`StoreReader`): for commands that only look, beside running servers or not.
    static func openForReading(_ parsed: ParsedArguments) throws -> (RevenueDotConfig, StoreReader) {
        let config = try ConfigLoader.load(path: parsed.value("config") ?? "revenuedot.json", readingExchangeRates: false)
        return (config, try reader(config))
    }

    /// The configuration's database opened for reading only; it must exist and hold this build's
    /// schema.
    static func reader(_ config: RevenueDotConfig) throws -> StoreReader {
        switch config.database {
        case .sqlite(let path):
            try requireFile(path, config: config)
            return try opening(config, "cannot read") { () throws(StoreError) in try StoreReader(path: path) }
        case .postgres(let url):
            return try opening(config, "cannot read") { () throws(StoreError) in try StoreReader(postgres: url) }
        }
    }

    /// Loads the configuration at `configPath` and opens its database, which must exist: a
    /// command pointed at the wrong file, directory or database says so, instead of creating an
    /// empty database and reporting that nothing is stored. `exclusive` is for a command that
    /// must be the only writer (`replay`): it fails while a server has the database. `command`
    /// names the command in the line saying the schema was brought forward.
    static func open(configPath: String, exclusive: Bool = false, command: String) throws -> (RevenueDotConfig, Store) {
        let config = try ConfigLoader.load(path: configPath)
        return (config, try open(config, exclusive: exclusive, command: command))
    }

    /// `open(configPath:exclusive:command:)` for a configuration already loaded.
    static func open(_ config: RevenueDotConfig, exclusive: Bool = false, command: String) throws -> Store {
        switch config.database {
        case .sqlite(let path):
            try requireDatabase(config)
            return try opening(config, command: command) { () throws(StoreError) in try Store(path: path, exclusive: exclusive) }
        case .postgres(let url):
            try requireDatabase(config)
            return try opening(config, command: command) { () throws(StoreError) in
                try Store(postgres: url, exclusive: exclusive)
            }
        }
    }

    /// Where `import` keeps its checkpoints: beside the SQLite file, or, on PostgreSQL, beside
    /// the configuration file under the database's name.
    static func checkpointBase(_ config: RevenueDotConfig) -> String {
        switch config.database {
        case .sqlite(let path): path
        case .postgres(let url):
            URL(fileURLWithPath: config.file).deletingLastPathComponent().appendingPathComponent("postgres-\(url.database)").path
        }
    }

    /// The database as messages name it: the SQLite file's path, or the URL without a password.
    static func name(_ config: RevenueDotConfig) -> String {
        switch config.database {
        case .sqlite(let path): path
        case .postgres(let url): url.description
        }
    }

    /// Fails unless the database is one serve made, which a command that opens a store would
    /// otherwise make: the SQLite file must exist (an older schema is migrated by the store),
    /// and PostgreSQL must hold the schema, which reading first proves.
    private static func requireDatabase(_ config: RevenueDotConfig) throws {
        switch config.database {
        case .sqlite(let path): try requireFile(path, config: config)
        case .postgres: try reader(config).close()
        }
    }

    private static func requireFile(_ path: String, config: RevenueDotConfig) throws {
        guard FileManager.default.fileExists(atPath: path) else {
            throw ConfigError(
                file: config.file, key: "database",
                problem: "\(path) does not exist: nothing was stored with this configuration (revenuedot serve creates it)")
        }
    }

    /// `open()`, its failure told as the configuration's database that cannot be opened; a store
    /// that brought the schema forward says so, as `revenuedot COMMAND:` (README asks for a
    /// backup before an upgrade).
    private static func opening<T>(
        _ config: RevenueDotConfig, _ what: String = "cannot open", command: String = "", _ open: () throws(StoreError) -> T
    ) throws -> T {
        do throws(StoreError) {
            let opened = try open()
            if let upgrade = (opened as? Store)?.schemaUpgrade {
                StandardStreams.error("revenuedot \(command): migrated the database's \(upgrade.description) first\n")
            }
            return opened
        } catch {
            throw ConfigError(file: config.file, key: "database", problem: error.about(name(config), what))
        }
    }
}
