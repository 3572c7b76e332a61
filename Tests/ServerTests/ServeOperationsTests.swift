import AppStoreServerAPI
import Foundation
import HTTP
import Server
import Testing

/// How `revenuedot serve` behaves where an operator runs it: a closed terminal, closed standard
/// descriptors, a binary that is not in .build.
@Suite("Serve in operation", .serialized)
struct ServeOperationsTests {
    /// SIGHUP reloads the configuration and the server goes on; SIGTERM then stops it
    /// gracefully. Started with SIGHUP ignored (`nohup`), it reloads as well.
    @Test(arguments: [false, true]) func sighupReloadsUnderNohupToo(ignored: Bool) throws {
        let fixture = try ServerFixture()
        // The test runner's children may inherit SIGHUP ignored: set the disposition wanted.
        let server = try ChildServer(configPath: fixture.configPath, sighup: ignored ? "SIG_IGN" : "SIG_DFL")
        server.kill(SIGHUP)
        #expect(server.output(containing: "config.reloaded").contains("info config.reloaded"))
        #expect(server.process.isRunning, "a SIGHUP stopped the server")
        server.kill(SIGTERM)
        #expect(server.wait(timeout: 30) == 0)
        #expect(server.process.terminationReason == .exit)
        #expect(server.output(containing: "stop.done").contains("info stop.done stopped"))
    }

    /// A python3 program that runs argv[1...] in a pseudo-terminal of its own (its controlling
    /// terminal, as a shell's job has), reads until "listening on", then either closes the
    /// terminal (argv: "close") or sends SIGHUP with the terminal open ("hup") and waits for the
    /// reload before a SIGTERM; prints "exit STATUS" and the server's output.
    static let inTerminal = """
        import os, pty, select, signal, sys, time
        mode = sys.argv[1]
        pid, fd = pty.fork()
        if pid == 0:
            signal.signal(signal.SIGHUP, signal.SIG_IGN if mode == "nohup-close" else signal.SIG_DFL)
            os.execv(sys.argv[2], sys.argv[2:])
        seen = b""
        def read_until(text, seconds):
            global seen
            deadline = time.time() + seconds
            while text not in seen and time.time() < deadline:
                ready, _, _ = select.select([fd], [], [], 0.5)
                if ready:
                    try:
                        seen += os.read(fd, 65536)
                    except OSError:
                        return
        read_until(b"listening on", 60)
        if mode == "close":
            os.close(fd)
        elif mode == "nohup-close":
            os.close(fd)
            time.sleep(1)
            print("alive" if os.waitpid(pid, os.WNOHANG) == (0, 0) else "stopped")
            os.kill(pid, signal.SIGTERM)
        else:
            os.kill(pid, signal.SIGHUP)
            read_until(b"config.reloaded", 30)
            os.kill(pid, signal.SIGTERM)
            read_until(b"stop.done", 30)
        _, status = os.waitpid(pid, 0)
        print("exit", os.waitstatus_to_exitcode(status))
        print(seen.decode("utf-8", "replace"))
        """

    /// The terminal `serve` runs in closing (`make run` in a window closed) stops it gracefully,
    /// as the SIGHUP's default action ended it; a SIGHUP while that terminal is open reloads.
    /// Under nohup (SIGHUP ignored at start) the terminal closing does not stop it.
    @Test(arguments: ["close", "hup", "nohup-close"]) func theTerminalClosingStopsAndASighupInItReloads(mode: String) throws {
        let fixture = try ServerFixture()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [
            "-c", Self.inTerminal, mode, ChildServer.executable.path, "serve", "--config", fixture.configPath,
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if mode == "nohup-close" {
            #expect(output.hasPrefix("alive\nexit 0\n"), "\(output)")
        } else {
            #expect(output.hasPrefix("exit 0\n"), "\(output)")
        }
        if mode == "hup" {
            #expect(output.contains("info config.reloaded"), "\(output)")
        } else {
            #expect(!output.contains("config.reload"), "\(output)")
        }
        // Stopped gracefully: the WAL was checkpointed and removed at close.
        #expect(!FileManager.default.fileExists(atPath: fixture.databasePath + "-wal"))
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

    /// `init` writes the demo configuration and its in-app purchase key for their owner only, and the
    /// server's next steps name the binary as it was run, not .build/release/revenuedot. Listening
    /// on port 0, they name the bound port for `simulate`, which refuses to guess one without it.
    @Test func demoConfigIsPrivateAndNextStepsNameTheBinaryRun() throws {
        let directory = TestDirectory("serve-operations")
        let config = directory.path("revenuedot.json")
        #expect(try runCLI(["init", "--config", config]).status == 0)
        let key = directory.path(".revenuedot/dev-ca/in-app-purchase-key.p8")
        for file in [config, key] {
            let permissions = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? NSNumber
            #expect(permissions?.intValue == 0o600, "\(file)")
        }
        // The demo can sign in-app requests and ask the simulated App Store Server API, and asks
        // Apple nothing by itself: its key is no key of Apple's.
        let loaded = try ConfigLoader.load(path: config)
        #expect(loaded.apps.first?.inAppPurchaseKey?.privateKeyPath == key)
        #expect(loaded.appleAPI.backfillIntervalMinutes == 0 && loaded.appleAPI.reconcileIntervalMinutes == 0)
        #expect(loaded.appleAPI.baseURLs[.sandbox] == APIBaseURL("http://127.0.0.1:8090"))
        // Sandbox only: nothing a demo command asks reaches Apple's Production host.
        #expect(loaded.apps.first?.environments == [.sandbox])
        // The demo listens on 8080; any free port will do here.
        let text = try String(contentsOfFile: config, encoding: .utf8)
        try text.replacingOccurrences(of: "127.0.0.1:8080", with: "127.0.0.1:0").write(
            toFile: config, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: config)
        let server = try ChildServer(configPath: config)
        let expected = "\(ChildServer.executable.path) notifications list --config \(config)"
        let simulate = "simulate subscribe --user alice --config \(config) --server http://127.0.0.1:\(server.port)"
        let output = server.output(containing: simulate)
        #expect(output.contains(expected), "\(output)")
        #expect(!output.contains(".build/release/revenuedot"))
        #expect(output.contains(simulate), "\(output)")
        let guessed = try runCLI(["simulate", "subscribe", "--user", "alice", "--config", config], in: directory.path(""))
        #expect(guessed.status == 2)
        #expect(guessed.output.contains("listens on port 0"), "\(guessed.output)")
        #expect(!FileManager.default.fileExists(atPath: directory.path(".revenuedot/simulator/demo/alice.json")))
        let played = try runCLI(simulate.split(separator: " ").map(String.init), in: directory.path(""))
        #expect(played.status == 0, "\(played.output)")
        #expect(played.output.contains("← 200"), "\(played.output)")
        server.kill(SIGTERM)
        #expect(server.wait() == 0)
    }
    /// A start that cannot listen (its port is taken) says so in one line, before it opens the
    /// database: no database, WAL reserve or shared-memory file is left behind.
    @Test func aStartThatCannotListenLeavesNothingBehind() throws {
        let taken = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, threads: 1), router: Router(), observer: nil)
        try taken.start()
        defer { taken.shutdown() }
        let directory = TestDirectory("serve-taken")
        let config = try directory.write(
            "revenuedot.json",
            """
            {"listen": "127.0.0.1:\(taken.port)", "database": "sqlite:revenuedot.sqlite",
             "apps": [{"id": "a", "bundleId": "com.example.a", "environments": ["Sandbox"]}]}
            """)
        let result = try runCLI(["serve", "--config", config])
        #expect(result.status == 1)
        #expect(startFailedMessage(result.output)?.hasPrefix("config \(config): listen:") == true, "\(result.output)")
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path(""))
        #expect(!left.contains { $0.hasPrefix("revenuedot.sqlite") }, "\(left)")
    }

    /// The same configuration served twice (its port fixed): the second start names the process
    /// that has the database, not only the port it could not take.
    @Test func aSecondServeOfOneConfigurationNamesTheFirst() throws {
        let fixture = try ServerFixture()
        let first = try ChildServer(configPath: fixture.configPath)
        defer {
            first.kill(SIGTERM)
            _ = first.wait()
        }
        try fixture.listen(on: first.port)
        let second = try runCLI(["serve", "--config", fixture.configPath])
        #expect(second.status == 1)
        #expect(
            second.output.contains("is in use by another RevenueDot process (pid \(first.process.processIdentifier))"),
            "\(second.output)")
        #expect(startFailedMessage(second.output) != nil, "\(second.output)")
        #expect(first.process.isRunning)
    }
}
