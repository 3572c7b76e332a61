/// A configuration that cannot run: one line naming the file, the key and the problem.
package struct ConfigError: Error, CustomStringConvertible, Sendable {
    /// The key path, such as `apps[0].bundleId`; empty for the file as a whole.
    package var key: String
    package var problem: String
    package var file: String

    package init(file: String, key: String, problem: String) {
        self.file = file
        self.key = key
        self.problem = problem
    }

    /// One line: control characters the file put in a key or a value (a line break in an app id)
    /// are written as `\u{A}`.
    package var description: String {
        (key.isEmpty ? "config \(file): \(problem)" : "config \(file): \(key): \(problem)").escapingControls
    }
}
