import Foundation
import Server
import Storage

/// `revenuedot migrate-db`: copies a SQLite database into an empty PostgreSQL one.
package struct MigrateDBCommand {
    package static let usage = """
        usage: revenuedot migrate-db --from sqlite:PATH --to postgres://USER@HOST:PORT/DB [--password-file FILE]

        Copies everything a SQLite database holds (raw notifications, posted transactions,
        derived state, the outbox with each delivery's status, rejects) into an empty
        PostgreSQL database, creating its schema, then checks every table: the same number of
        rows and the same digest on both sides. Stop the server first. A target that already
        holds rows is refused and left as it is. The password comes from the URL, the password
        file or PGPASSWORD. Then point the config's database at the PostgreSQL URL.
        """

    let sqlitePath: String
    /// `--to` as given, read with the password file once its modes are checked (`run`).
    let to: String
    let passwordFile: String?

    package init(arguments: [String]) throws {
        let parsed = try ParsedArguments(arguments, valueOptions: ["from", "to", "password-file"], flagOptions: [])
        guard parsed.positionals.isEmpty else { throw UsageError("migrate-db takes no arguments besides its options") }
        guard let from = parsed.value("from") else { throw UsageError("migrate-db needs --from sqlite:PATH") }
        guard from.hasPrefix("sqlite:"), from.count > "sqlite:".count else {
            throw UsageError("--from must be sqlite:PATH, not \"\(from)\"")
        }
        guard let to = parsed.value("to") else { throw UsageError("migrate-db needs --to postgres://USER@HOST:PORT/DB") }
        sqlitePath = String(from.dropFirst("sqlite:".count))
        passwordFile = parsed.value("password-file")
        self.to = to
        // A URL that does not read is the command line's problem: said before any file is read.
        do { _ = try PostgresURL(to, passwordFile: nil, environment: [:]) } catch {
            throw UsageError("--to: \(error.message)")
        }
    }

    package func run() throws -> Int32 {
        // Refused as serve refuses the configuration's passwordFile: a file's problem, not the
        // command line's.
        if let passwordFile, let problem = SecretFileModes.problem(passwordFile, holding: "the database's password") {
            throw CommandError("--password-file \(problem)")
        }
        let url: PostgresURL
        do { url = try PostgresURL(to, passwordFile: passwordFile) } catch {
            throw CommandError("--password-file: \(error.message)")
        }
        guard FileManager.default.fileExists(atPath: sqlitePath) else {
            throw CommandError("--from: \(sqlitePath) does not exist")
        }
        let report = try SQLiteToPostgres.copy(from: sqlitePath, to: url) { table in
            StandardStreams.error("revenuedot migrate-db: copying \(table)\n")
        }
        for table in report.tables {
            StandardStreams.out("\(table.name): \(table.rows) rows, digest \(table.digest.prefix(16)) on both sides\n")
        }
        if let unlocked = report.unlocked {
            StandardStreams.error(
                "revenuedot migrate-db: warning: copied without the source's lock (\(unlocked)): make sure no serve "
                    + "wrote \(sqlitePath) during the copy\n")
        }
        let total = report.tables.reduce(0) { $0 + $1.rows }
        StandardStreams.out("revenuedot migrate-db: copied \(total) rows of \(report.tables.count) tables into \(url)\n")
        return 0
    }
}
