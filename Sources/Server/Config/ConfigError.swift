/// A configuration that cannot run: one line naming the file, the key and the problem.
public struct ConfigError: Error, CustomStringConvertible, Sendable {
    /// The key path, such as `apps[0].bundleId`; empty for the file as a whole.
    public var key: String
    public var problem: String
    public var file: String

    public init(file: String, key: String, problem: String) {
        self.file = file
        self.key = key
        self.problem = problem
    }

    /// One line: control characters the file put in a key or a value (a line break in an app id)
    /// are written as `\u{A}`.
    public var description: String {
        (key.isEmpty ? "config \(file): \(problem)" : "config \(file): \(key): \(problem)").escapingControls
    }
}
