/// A command line that cannot be run; the CLI prints it with the usage and exits 2.
package struct UsageError: Error, CustomStringConvertible, Sendable {
    package var description: String
    package init(_ description: String) { self.description = description }
}
