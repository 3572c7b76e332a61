import Foundation
import Testing

/// How `revenuedot serve` behaves where an operator runs it: a closed terminal, closed standard
/// descriptors, a binary that is not in .build.
@Suite("Serve in operation", .serialized)
struct ServeOperationsTests {
    /// SIGHUP (the terminal running `make run` closed) stops the server gracefully, as SIGTERM
    /// does; its default action ended the process at once (exit by signal, WAL left behind).
    /// Started with SIGHUP ignored (`nohup`), the server keeps ignoring it.
    @Test(arguments: [false, true]) func sighupStopsGracefullyUnlessIgnored(ignored: Bool) throws {
        let fixture = try ServerFixture()
        // The test runner's children may inherit SIGHUP ignored: set the disposition wanted.
        let server = try ChildServer(configPath: fixture.configPath, sighup: ignored ? "SIG_IGN" : "SIG_DFL")
        server.kill(SIGHUP)
        if ignored {
            Thread.sleep(forTimeInterval: 0.5)
            #expect(server.process.isRunning, "a SIGHUP stopped a server started under nohup")
            server.kill(SIGTERM)
        }
        #expect(server.wait(timeout: 30) == 0)
        #expect(server.process.terminationReason == .exit)
        #expect(server.output(containing: "revenuedot serve: stopped").contains("revenuedot serve: stopped"))
    }

    /// Started with standard output and error closed, the server gets /dev/null on them. Before,
    /// its signal pipe took descriptors 1 and 2, and the first line written to standard error
    /// stopped it as if a SIGTERM had come.
    @Test func closedStandardDescriptorsBecomeDevNull() throws {
        let fixture = try ServerFixture()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "exec \"$0\" serve --config \"$1\" >&- 2>&-", ChildServer.executable.path, fixture.configPath]
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // Storage is opened after the signal pipe: once its lock file is there, both are made.
        let lock = fixture.databasePath + ".lock"
        poll(seconds: 30) { FileManager.default.fileExists(atPath: lock) || !process.isRunning }
        #expect(process.isRunning)
        for descriptor in [1, 2] {
            let target = try FileManager.default.destinationOfSymbolicLink(
                atPath: "/proc/\(process.processIdentifier)/fd/\(descriptor)")
            #expect(target == "/dev/null", "descriptor \(descriptor) is \(target)")
        }
        kill(process.processIdentifier, SIGTERM)
        #expect(poll(seconds: 30) { !process.isRunning })
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
    }

    /// `init` writes the demo configuration (it holds API keys) for its owner only, and the
    /// server's next steps name the binary as it was run, not .build/release/revenuedot.
    @Test func demoConfigIsPrivateAndNextStepsNameTheBinaryRun() throws {
        let directory = TestDirectory("serve-operations")
        let config = directory.path("revenuedot.json")
        #expect(try runCLI(["init", "--config", config]).status == 0)
        let permissions = try FileManager.default.attributesOfItem(atPath: config)[.posixPermissions] as? NSNumber
        #expect(permissions?.intValue == 0o600)
        // The demo listens on 8080; any free port will do here.
        let text = try String(contentsOfFile: config, encoding: .utf8)
        try text.replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:0").write(
            toFile: config, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: config)
        let server = try ChildServer(configPath: config)
        let expected = "\(ChildServer.executable.path) notifications list --config \(config)"
        let output = server.output(containing: expected)
        server.kill(SIGTERM)
        #expect(server.wait() == 0)
        #expect(output.contains(expected), "\(output)")
        #expect(!output.contains(".build/release/revenuedot"))
    }
}
