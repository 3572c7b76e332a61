import Foundation

/// Tools some suites drive (nginx, Chromium's driver), which `make test` installs.
enum TestTool {
    /// Whether a suite needing the tool at `path` runs: where it is installed, and always under
    /// `make test` (`REVENUEDOT_TEST_STRICT=1`), so that a tool that failed to install fails
    /// those suites instead of turning them off without a word.
    static func runs(_ path: String) -> Bool {
        FileManager.default.isExecutableFile(atPath: path) || strict
    }

    /// `make test` promises every tool its suites need.
    static let strict = ProcessInfo.processInfo.environment["REVENUEDOT_TEST_STRICT"] == "1"
}
