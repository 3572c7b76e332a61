import Foundation

/// A fresh directory for one test's files.
///
/// Every one lives in this test process's own folder under the system temporary directory, which
/// is removed when the process exits; a folder left by a run that was killed is removed by the
/// next run. So a test may hand a path to a server or a child process that outlives its scope,
/// and a test run leaves nothing behind.
struct TestDirectory {
    let url: URL

    init(_ name: String = "revenuedot") {
        url = TestRunFolder.url.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Writes `text` to a file readable by its owner only, as `serve` wants configurations and keys.
    func write(_ name: String, _ text: String) throws -> String {
        let path = path(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return path
    }
}

/// The folder of this test process: `revenuedot-tests-PID` in the system temporary directory.
enum TestRunFolder {
    static let prefix = "revenuedot-tests-"

    static let url: URL = {
        let temporary = FileManager.default.temporaryDirectory
        removeFoldersOfEndedRuns(in: temporary)
        let url = temporary.appendingPathComponent(prefix + String(getpid()))
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: TestRunFolder.url) }
        return url
    }()

    /// Removes the folders of test processes that no longer run (killed before their exit).
    static func removeFoldersOfEndedRuns(in temporary: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        for name in names where name.hasPrefix(prefix) {
            guard let pid = pid_t(name.dropFirst(prefix.count)), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
            }
        }
    }
}
