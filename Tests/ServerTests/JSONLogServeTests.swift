import Foundation
import JSON
import LoopbackClient
import Testing

/// `serve` with `"log": {"format": "json"}` writes JSON and nothing else: a log shipper that reads
/// its output (both streams, as journald takes them) never meets a line it cannot parse.
@Suite struct JSONLogServeTests {
    @Test func aJSONLoggingServerPrintsOnlyJSONLines() throws {
        let fixture = try ServerFixture(extraHTTP: #", "log": {"format": "json"}"#)
        let process = Process()
        process.executableURL = ChildServer.executable
        process.arguments = ["serve", "--config", fixture.configPath]
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = nil
        process.environment = environment
        let (output, errors) = (Pipe(), Pipe())
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let errorText = CollectedOutput()
        PipeDrain.start(errors.fileHandleForReading, into: errorText)
        let outputText = CollectedOutput()
        PipeDrain.start(output.fileHandleForReading, into: outputText)

        // The start line names the bound port.
        var port: UInt16?
        poll(seconds: 30) {
            let text = errorText.text.withLock { $0 }
            guard let match = text.firstMatch(of: #/"listen":"127\.0\.0\.1:(\d+)"/#) else { return false }
            port = UInt16(match.output.1)
            return true
        }
        let bound = try #require(port, "\(errorText.text.withLock { $0 })")
        // A refused notification writes a line too.
        let refused = try LoopbackConnection(port: bound).request(
            "POST", "/v1/apple/notifications/demo", headers: ["Content-Type": "application/json"], body: Data("{}".utf8))
        #expect(refused.status == 400)
        #expect(poll(seconds: 10) { errorText.text.withLock { $0.contains("notification.refused") } })
        process.terminate()
        #expect(poll(seconds: 60) { !process.isRunning })
        #expect(process.terminationStatus == 0)
        #expect(poll(seconds: 5) { errorText.text.withLock { $0.contains("\"stop.done\"") } })

        #expect(outputText.text.withLock { $0 }.isEmpty, "standard output: \(outputText.text.withLock { $0 })")
        let lines = errorText.text.withLock { $0 }.split(separator: "\n")
        #expect(lines.count >= 4)
        for line in lines {
            let object = try? JSONValue(parsing: Data(line.utf8))
            #expect(object?["event"]?.stringValue != nil, "not a JSON log line: \(line)")
        }
    }

    /// A start that fails after the configuration was read (the port is taken) says so in JSON.
    @Test func aFailedStartIsAJSONLine() throws {
        let fixture = try ServerFixture(extraHTTP: #", "log": {"format": "json"}"#)
        let taken = try ChildServer(configPath: try ServerFixture().configPath)
        defer {
            taken.kill(SIGTERM)
            _ = taken.wait()
        }
        try fixture.listen(on: taken.port)
        let result = try runCLI(["serve", "--config", fixture.configPath])
        #expect(result.status == 1)
        let lines = result.output.split(separator: "\n")
        #expect(lines.count == 1, "\(result.output)")
        let object = try JSONValue(parsing: Data((lines.first ?? "").utf8))
        #expect(object["event"]?.stringValue == "start.failed")
        #expect(object["level"]?.stringValue == "error")
        #expect(object["message"]?.stringValue?.contains("Address already in use") == true, "\(result.output)")
    }

    /// A configuration that parses but is refused (a webhook URL of another scheme) is said in
    /// JSON too, when its log settings ask for it; one that is not JSON is a `start.failed`
    /// line in the default text format.
    @Test func aRefusedConfigurationIsAJSONLineWhenItsLogSaysSo() throws {
        let fixture = try ServerFixture(
            extraHTTP: #", "log": {"format": "json"}"#, demoOptions: #""webhook": {"url": "ftp://127.0.0.1/hooks"}"#)
        let result = try runCLI(["serve", "--config", fixture.configPath])
        #expect(result.status == 1)
        let lines = result.output.split(separator: "\n")
        #expect(lines.count == 1, "\(result.output)")
        let object = try JSONValue(parsing: Data((lines.first ?? "").utf8))
        #expect(object["event"]?.stringValue == "start.failed", "\(result.output)")
        #expect(object["message"]?.stringValue?.contains("webhook.url") == true, "\(result.output)")
        let broken = try fixture.directory.write("broken.json", #"{"log": {"format": "json"}, "apps": ["#)
        chmod(broken, 0o600)
        let plain = try runCLI(["serve", "--config", broken])
        #expect(plain.status == 1)
        #expect(startFailedMessage(plain.output)?.hasPrefix("config ") == true, "\(plain.output)")
    }
}
