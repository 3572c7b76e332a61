import Foundation

/// Runs the built `revenuedot` executable with `arguments`; returns its exit status and output
/// (standard output and standard error together). `fileSizeLimitBytes`: the most any file it
/// writes may hold (`RLIMIT_FSIZE`; revenuedot ignores SIGXFSZ itself, so a longer write fails
/// with EFBIG instead of killing it), to stand in for a full disk.
func runCLI(
    _ arguments: [String], in directory: String? = nil, fileSizeLimitBytes: Int? = nil
) throws -> (status: Int32, output: String) {
    if let fileSizeLimitBytes {
        return try runProcess(
            "/usr/bin/python3",
            ["-c", ChildServer.launcher, "", String(fileSizeLimitBytes), ChildServer.executable.path] + arguments,
            in: directory)
    }
    return try runProcess(ChildServer.executable.path, arguments, in: directory)
}

/// Runs `executable` with `arguments` (in `directory`) to its end; its exit status and output
/// (standard output and standard error together).
func runProcess(_ executable: String, _ arguments: [String], in directory: String? = nil) throws -> (
    status: Int32, output: String
) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// The message of the one line a failed `serve` writes in the text log format
/// (`TIME error start.failed MESSAGE`); nil when `output` is anything else.
func startFailedMessage(_ output: String) -> String? {
    let line = output.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !line.contains("\n"),
        let match = line.firstMatch(of: #/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z error start\.failed (.+)$/#)
    else { return nil }
    return String(match.output.1)
}
