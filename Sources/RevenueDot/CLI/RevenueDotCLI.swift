import Foundation

/// The `revenuedot` command line: picks the command and maps errors to exit statuses.
public enum RevenueDotCLI {
    public static let usage = """
        usage: revenuedot <command> [options]

        commands:
          verify    verify App Store signed data and print its decoded payload
          help      show this text

        Run `revenuedot <command> --help` for a command's options.
        """

    /// Runs the command line (without the program name) and returns the exit status.
    public static func run(_ arguments: [String]) -> Int32 {
        guard let command = arguments.first else {
            StandardStreams.error(usage + "\n")
            return 2
        }
        let rest = Array(arguments.dropFirst())
        switch command {
        case "help", "--help", "-h":
            StandardStreams.out(usage + "\n")
            return 0
        case "verify":
            if rest.contains("--help") || rest.contains("-h") {
                StandardStreams.out(VerifyCommand.usage + "\n")
                return 0
            }
            do {
                return try VerifyCommand(arguments: rest).run()
            } catch let error as UsageError {
                StandardStreams.error("revenuedot verify: \(error)\n\n\(VerifyCommand.usage)\n")
                return 2
            } catch {
                StandardStreams.error("revenuedot verify: \(error)\n")
                return 2
            }
        default:
            StandardStreams.error("revenuedot: unknown command \"\(command)\"\n\n\(usage)\n")
            return 2
        }
    }
}
