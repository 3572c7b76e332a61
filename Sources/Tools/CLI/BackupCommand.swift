import Foundation
import Server
import Storage
import Threads

/// `revenuedot backup`: a consistent copy of the SQLite database, made while `serve` runs.
package struct BackupCommand {
    package static let usage = """
        usage: revenuedot backup --out FILE [--config FILE]

        Copies the configured SQLite database into FILE (a new file, mode 0600) as of one moment,
        while revenuedot serve goes on answering: SQLite's online backup. The copy is checked
        (SQLite's quick_check, a schema this build knows) before it takes its name, so FILE
        exists only when the backup is whole. Put it back with `revenuedot restore FILE`.
        For a PostgreSQL database use pg_dump or your provider's backups.
        """

    let configPath: String
    let out: String

    package init(arguments: [String]) throws {
        let parsed = try ParsedArguments(arguments, valueOptions: ["config", "out"], flagOptions: [])
        guard parsed.positionals.isEmpty else { throw UsageError("backup takes no arguments (the file goes after --out)") }
        guard let out = parsed.value("out") else { throw UsageError("backup needs --out FILE") }
        configPath = parsed.value("config") ?? "revenuedot.json"
        self.out = out
    }

    /// A destination that cannot take the backup, said before any copying.
    struct DestinationError: Error, CustomStringConvertible {
        let description: String
    }

    package func run() throws -> Int32 {
        let path = try BackupCommand.sqlitePath(configPath: configPath, command: "backup")
        // Said as the command's own words, before the store's (which would read as storage failing).
        if let problem = DatabaseBackup.destinationProblem(out) { throw DestinationError(description: problem) }
        let started = ContinuousClock.now
        defer { InterruptedCommand.stop() }
        let summary = try DatabaseBackup.backup(database: path, to: out, claimed: InterruptedCommand.removeOnSignal)
        let seconds = started.duration(to: .now).inSeconds
        StandardStreams.out(
            "revenuedot backup: \(path) copied to \(out) (\(summary.describe), in \(String(format: "%.1f", seconds)) s)\n")
        return 0
    }

    /// The SQLite database the configuration at `configPath` names; a PostgreSQL one is refused
    /// with the tools to use instead.
    static func sqlitePath(configPath: String, command: String) throws -> String {
        let config = try ConfigLoader.load(path: configPath, readingExchangeRates: false)
        switch config.database {
        case .sqlite(let path): return path
        case .postgres(let url):
            throw ConfigError(
                file: config.file, key: "database",
                problem: "\(command) works on a SQLite database, not \(url): use pg_dump and pg_restore, or your "
                    + "provider's backups, for PostgreSQL (README \"Backups\")")
        }
    }
}

extension DatabaseBackup.Summary {
    /// "12,345 notifications, schema 14, 52.1 MB".
    var describe: String {
        "\(notifications) notification(s), schema \(schemaVersion), \(String(format: "%.1f", Double(bytes) / 1_000_000)) MB"
    }
}
