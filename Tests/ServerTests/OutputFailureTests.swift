import Foundation
import Testing

/// Output that cannot be written: a command says so and fails, a server goes on.
@Suite("Unwritable output", .serialized)
struct OutputFailureTests {
    /// A full disk under standard output: one line on standard error and exit 1, not a crash
    /// (FileHandle's old write trapped) and not a success that printed nothing.
    @Test func aCommandWhoseOutputCannotBeWrittenFailsInOneLine() throws {
        let process = Process()
        process.executableURL = ChildServer.executable
        process.arguments = ["explain", "DID_RENEW"]
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/full")
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 1)
        #expect(text.hasPrefix("revenuedot: cannot write to standard output: "), "\(text)")
        #expect(text.split(separator: "\n").count == 1, "\(text)")
    }

    /// A server whose standard output is closed (its log reader died) serves, and stops
    /// gracefully with exit 0: no SIGPIPE, no trap on the lines it could not print.
    @Test func aServerWithoutStandardOutputServesAndStopsCleanly() throws {
        let fixture = try ServerFixture()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "exec \"$0\" serve --config \"$1\" >&-", ChildServer.executable.path, fixture.configPath]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        // Its port is printed on the closed output: wait for its database's lock file, then
        // for the rest of the start (the banner it cannot print comes right after).
        let lock = fixture.databasePath + ".lock"
        let started = Date()
        while !FileManager.default.fileExists(atPath: lock), Date().timeIntervalSince(started) < 20, process.isRunning {
            Thread.sleep(forTimeInterval: 0.05)
        }
        Thread.sleep(forTimeInterval: 1)
        #expect(process.isRunning, "the server keeps running without its standard output")
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0, "\(text)")
    }
}
