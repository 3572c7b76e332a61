/// A command line that cannot be run; the CLI prints it with the usage and exits 2.
package struct UsageError: Error, CustomStringConvertible, Sendable {
    package var description: String
    package init(_ description: String) { self.description = description }
}

/// A command that could not do what was asked for a reason outside its arguments (the database
/// in use, a server that refused or did not answer, a directory it cannot write): the CLI prints
/// the one line and exits 1, without the usage (the command line was sound).
package struct CommandError: Error, CustomStringConvertible, Sendable {
    package var description: String
    package init(_ description: String) { self.description = description }
}
