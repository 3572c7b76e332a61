/// A command line that cannot be run; the CLI prints it with the usage and exits 2.
public struct UsageError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
