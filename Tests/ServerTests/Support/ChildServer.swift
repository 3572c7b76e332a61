import Foundation
import Synchronization

/// A `revenuedot serve` child process, for crash and shutdown tests.
final class ChildServer: @unchecked Sendable {
    let process = Process()
    private let output = Pipe()
    let port: UInt16
    /// What the child printed up to its URL.
    let startupOutput: String
    /// Everything the child printed (standard output and error), its start included.
    private let collected = CollectedOutput()

    /// The debug build of the executable, next to the test bundle's build products.
    static var executable: URL {
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return packageRoot.appendingPathComponent(".build/debug/revenuedot")
    }

    /// A python3 program that sets SIGHUP's disposition (argv[1], unless empty) and a file size
    /// limit in bytes (argv[2], unless negative; SIGXFSZ keeps its default, which would kill the
    /// process: revenuedot ignores it itself), then execs argv[3...]. For `runCLI` too.
    static let launcher = """
        import os, resource, signal, sys
        if sys.argv[1]: signal.signal(signal.SIGHUP, getattr(signal, sys.argv[1]))
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)
        limit = int(sys.argv[2])
        if limit >= 0:
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        os.execv(sys.argv[3], sys.argv[3:])
        """

    /// Starts `revenuedot serve --config configPath` and waits until it prints its URL.
    ///
    /// - Parameter fileSizeLimitKiB: a limit on the size of any file the child writes (`ulimit
    ///   -f`; the child ignores SIGXFSZ, so a write past it fails with EFBIG), to stand in for a
    ///   full disk.
    /// - Parameter sighup: the disposition of SIGHUP the child starts with, "SIG_DFL" or "SIG_IGN"
    ///   (set through python3, since a shell cannot reset a signal ignored when it started).
    /// - Parameter environment: variables added to the test's own for the child.
    init(configPath: String, fileSizeLimitKiB: Int? = nil, sighup: String? = nil, environment: [String: String] = [:]) throws {
        if fileSizeLimitKiB != nil || sighup != nil {
            // Both are set in the child before it execs the server; either may be given alone.
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = [
                "-c", Self.launcher, sighup ?? "", String(fileSizeLimitKiB.map { $0 * 1024 } ?? -1),
                Self.executable.path, "serve", "--config", configPath,
            ]
        } else {
            process.executableURL = Self.executable
            process.arguments = ["serve", "--config", configPath]
        }
        // The test runner's own NOTIFY_SOCKET (run under systemd) is not the child's to use.
        var inherited = ProcessInfo.processInfo.environment
        inherited["NOTIFY_SOCKET"] = nil
        process.environment = inherited.merging(environment) { $1 }
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let handle = output.fileHandleForReading
        var text = ""
        let deadline = Date().addingTimeInterval(30)
        var found: UInt16?
        while found == nil, Date() < deadline {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            // The digits count once a non-digit follows: a read may end inside the port. The
            // welcome names it in the text format, the start line in JSON (which has no welcome).
            if let match = text.firstMatch(of: #/(?:listening on http://|"listen":")127\.0\.0\.1:(\d+)\D/#) {
                found = UInt16(match.output.1)
            }
        }
        guard let found else {
            process.terminate()
            throw ChildServerError(output: text)
        }
        port = found
        startupOutput = text
        collected.text.withLock { $0 = text }
        // Keep draining output so the child never blocks on a full pipe.
        PipeDrain.start(handle, into: collected)
    }

    /// What the child has printed so far, once it holds `text` (or after 10 s).
    func output(containing text: String) -> String {
        poll(seconds: 10) { collected.text.withLock { $0.contains(text) } }
        return collected.text.withLock { $0 }
    }

    /// Everything the child printed so far.
    var allOutput: String { collected.text.withLock { $0 } }

    func kill(_ signal: Int32) { Glibc.kill(process.processIdentifier, signal) }

    /// Waits for the child to exit and returns its status; after `timeout` seconds it is killed
    /// and the status is -1, so a server that never stops fails the test instead of hanging it.
    func wait(timeout: Double = 60) -> Int32 {
        guard poll(seconds: timeout, until: { !process.isRunning }) else {
            kill(SIGKILL)
            process.waitUntilExit()
            return -1
        }
        return process.terminationStatus
    }
}

/// A child's output, appended to by the pipe's handler.
final class CollectedOutput: Sendable {
    let text = Mutex<String>("")
}

struct ChildServerError: Error, CustomStringConvertible {
    var output: String
    var description: String { "revenuedot serve did not start: \(output)" }
}
