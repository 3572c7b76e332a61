import Foundation

/// Runs the built `revenuedot` executable with `arguments`; returns its exit status and output
/// (standard output and standard error together).
func runCLI(_ arguments: [String], in directory: String? = nil) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = ChildServer.executable
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
