import Foundation
import LoopbackClient
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

    /// A server whose standard output is closed (its log reader died) serves, access lines and
    /// all, and stops gracefully with exit 0: no SIGPIPE, no trap on the lines it could not print.
    @Test func aServerWithoutStandardOutputServesAndStopsCleanly() throws {
        let fixture = try ServerFixture()
        // Its port would be printed on the closed output: it listens on one chosen here.
        let port = try unusedLoopbackPort()
        let config = try String(contentsOfFile: fixture.configPath, encoding: .utf8)
        try config.replacingOccurrences(of: "127.0.0.1:0", with: "127.0.0.1:\(port)")
            .write(toFile: fixture.configPath, atomically: false, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "exec \"$0\" serve --config \"$1\" >&-", ChildServer.executable.path, fixture.configPath]
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let started = Date()
        var health: LoopbackResponse?
        while health == nil, Date().timeIntervalSince(started) < 30, process.isRunning {
            health = try? LoopbackConnection(port: port).request("GET", "/health")
            if health == nil { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(health?.status == 200, "the server answers without its standard output (running: \(process.isRunning))")
        let connection = try LoopbackConnection(port: port)
        let payload = try fixture.signer.notification(type: "SUBSCRIBED", subtype: "INITIAL_BUY")
        #expect(try connection.postNotification(payload).status == 200)
        #expect(try connection.postNotification(payload).status == 200, "a duplicate is answered too")
        #expect(process.isRunning, "the server keeps running after lines it could not print")
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0, "\(text)")
    }
}
