import Crypto
import Foundation
import Server

/// The `revenuedot` command line: picks the command and maps errors to exit statuses.
package enum RevenueDotCLI {
    package static let usage = """
        usage: revenuedot <command> [options]

        commands:
          serve          run the server (Apple's notifications, the HTTP API)
          init           write a demo configuration, a dev CA and a sample notification
          notifications  list and show what was received; the refusals and their counts
          events         list events and their webhook deliveries; resend one
          commerce       validate or sign an Advanced Commerce in-app request for a customer
          explain        what a notification means, what to do, and what RevenueDot does with it
          docs           write the notification reference as Markdown
          simulate       a local App Store: sign and post notification stories to a running server
          replay         rebuild subscription state, events and timers from the stored inputs
          migrate-db     copy a SQLite database into an empty PostgreSQL one, and check the copy
          verify         verify App Store signed data and print its decoded payload
          apple          call the App Store Server API for an app and print Apple's answer
          backfill       recover the notifications Apple sent that were never stored
          reconcile      bring stored subscriptions in line with what Apple says of them
          import         bring existing subscribers in from Apple, by original transaction id (CSV)
          check-config   check a configuration as serve would, without serving
          backup         copy the SQLite database consistently while serve runs
          restore        put a backup in place of the SQLite database (serve stopped)
          help [COMMAND] show this text, or a command's options

        Every command but migrate-db takes --config FILE (default revenuedot.json); verify reads
        one only when given --config, explain and docs never need one.
        `revenuedot --version` (or `version`) prints the version and the commit it was built from.

        Run `revenuedot <command> --help` for a command's options.
        """

    /// Runs the command line (without the program name) and returns the exit status.
    package static func run(_ arguments: [String]) -> Int32 {
        OpenSSLLifetime.keepStateUntilExit()
        StandardStreams.openClosedStandardDescriptors()
        // A file size limit (`ulimit -f`) reached must fail that write with EFBIG, which storage
        // reports like a full disk (503, so Apple retries), not kill the process with SIGXFSZ.
        signal(SIGXFSZ, SIG_IGN)
        guard let command = arguments.first else {
            StandardStreams.error(usage + "\n")
            return 2
        }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "help" where rest.count == 1 && rest[0] != "help" && !rest[0].hasPrefix("-"):
            // `help COMMAND` is `COMMAND --help` (an unknown command says so).
            return run([rest[0], "--help"])
        case "help", "--help", "-h":
            StandardStreams.out(usage + "\n")
            return 0
        case "--version", "version":
            guard rest.isEmpty else {
                StandardStreams.error("revenuedot \(command): takes nothing after it, not \(rest.joined(separator: " "))\n")
                return 2
            }
            StandardStreams.out("revenuedot \(RevenueDotVersion.description)\n")
            return 0
        case "check-config":
            return runCommand("check-config", rest, usage: CheckConfigCommand.usage) {
                try CheckConfigCommand(arguments: rest).run()
            }
        case "backup":
            return runCommand("backup", rest, usage: BackupCommand.usage) { try BackupCommand(arguments: rest).run() }
        case "restore":
            return runCommand("restore", rest, usage: RestoreCommand.usage) { try RestoreCommand(arguments: rest).run() }
        case "verify":
            return runCommand("verify", rest, usage: VerifyCommand.usage) { try VerifyCommand(arguments: rest).run() }
        case "apple":
            return runCommand("apple", rest, usage: AppleCommand.usage) { try AppleCommand(arguments: rest).run() }
        case "import":
            return runCommand("import", rest, usage: ImportCommand.usage) { try ImportCommand(arguments: rest).run() }
        case "reconcile":
            return runCommand("reconcile", rest, usage: ReconcileCommand.usage) { try ReconcileCommand(arguments: rest).run() }
        case "backfill":
            return runCommand("backfill", rest, usage: BackfillCommand.usage) { try BackfillCommand(arguments: rest).run() }
        case "serve":
            return runCommand("serve", rest, usage: ServeCommand.usage) { try ServeCommand(arguments: rest).run() }
        case "init":
            return runCommand("init", rest, usage: InitCommand.usage) { try InitCommand(arguments: rest).run() }
        case "migrate-db":
            return runCommand("migrate-db", rest, usage: MigrateDBCommand.usage) { try MigrateDBCommand(arguments: rest).run() }
        case "replay":
            return runCommand("replay", rest, usage: ReplayCommand.usage) { try ReplayCommand(arguments: rest).run() }
        case "simulate":
            return runCommand("simulate", rest, usage: SimulateCommand.usage) { try SimulateCommand(arguments: rest).run() }
        case "explain":
            return runCommand("explain", rest, usage: ExplainCommand.usage) { try ExplainCommand(arguments: rest).run() }
        case "docs":
            return runCommand("docs", rest, usage: DocsCommand.usage) { try DocsCommand(arguments: rest).run() }
        case "commerce":
            return runCommand("commerce", rest, usage: CommerceCommand.usage) { try CommerceCommand(arguments: rest).run() }
        case "events":
            return runCommand("events", rest, usage: EventsCommand.usage) { try EventsCommand(arguments: rest).run() }
        case "notifications":
            return runCommand("notifications", rest, usage: NotificationsCommand.usage) {
                try NotificationsCommand(arguments: rest).run()
            }
        default:
            if command.hasPrefix("-") {
                StandardStreams.error(
                    "revenuedot: \(command) comes after the command it is for, as in revenuedot serve --config FILE\n"
                        + "(revenuedot --help lists the commands)\n")
                return 2
            }
            StandardStreams.error("revenuedot: unknown command \"\(command)\"\n(revenuedot --help lists the commands)\n")
            return 2
        }
    }

    /// Runs one command: `--help` prints its usage; a usage error prints it too and exits 2.
    private static func runCommand(_ name: String, _ arguments: [String], usage: String, _ body: () throws -> Int32) -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") {
            StandardStreams.out(usage + "\n")
            return 0
        }
        do {
            return try body()
        } catch let error as UsageError {
            // The one line that says what is wrong stays in sight: the usage is a command away.
            StandardStreams.error("revenuedot \(name): \(error)\n(revenuedot \(name) --help shows its usage)\n")
            return 2
        } catch {
            StandardStreams.error("revenuedot \(name): \(error)\n")
            return 1
        }
    }
}
