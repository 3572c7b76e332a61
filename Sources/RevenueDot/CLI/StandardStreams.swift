import Foundation

/// Writing to standard output and standard error without buffering surprises.
enum StandardStreams {
    /// A command's output: if it cannot be written (a full disk, a closed descriptor), the command
    /// says so on standard error and exits 1 rather than carrying on as if it had printed it. (A
    /// reader that went away ends it by SIGPIPE first, as for any Unix command.)
    static func out(_ text: String) {
        do {
            try FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
        } catch {
            Self.error("revenuedot: cannot write to standard output: \(error.localizedDescription)\n")
            exit(1)
        }
    }

    /// What a running server says: lost, not fatal, when nobody can read it any more.
    static func note(_ text: String) {
        try? FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
    }

    static func error(_ text: String) {
        try? FileHandle.standardError.write(contentsOf: Data(text.utf8))
    }
}
