import Foundation
import Server
import Storage

/// `revenuedot restore`: a backup put in place of the SQLite database, with the server stopped.
package struct RestoreCommand {
    package static let usage = """
        usage: revenuedot restore FILE [--config FILE]

        Puts a copy of FILE (made by `revenuedot backup`) in place of the configured SQLite
        database. Stop revenuedot serve first: restore refuses while a server or a replay holds
        the database. FILE is checked first (SQLite's quick_check, a RevenueDot schema no newer
        than this build); the database it replaces is kept beside it as
        DATABASE.before-restore-TIME, never deleted. At its next start serve migrates an older
        backup forward, and what Apple sent since the backup comes back through Apple's retries
        and, with appleApi keys configured, the automatic backfill.
        """

    let configPath: String
    let file: String

    package init(arguments: [String]) throws {
        let parsed = try ParsedArguments(arguments, valueOptions: ["config"], flagOptions: [])
        guard parsed.positionals.count == 1, let file = parsed.positionals.first, !file.isEmpty else {
            throw UsageError("restore takes one argument: the backup FILE")
        }
        configPath = parsed.value("config") ?? "revenuedot.json"
        self.file = file
    }

    package func run() throws -> Int32 {
        let path = try BackupCommand.sqlitePath(configPath: configPath, command: "restore")
        let restored = try DatabaseBackup.restore(file, to: path, at: Date())
        let previous = restored.previous.map { "; the database it replaced is kept as \($0)" } ?? ""
        StandardStreams.out("revenuedot restore: \(file) restored into \(path) (\(restored.summary.describe))\(previous)\n")
        return 0
    }
}
