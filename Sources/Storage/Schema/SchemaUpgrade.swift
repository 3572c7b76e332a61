/// A schema brought forward at open: from the newest migration it had to this build's.
public struct SchemaUpgrade: Sendable, Equatable {
    public let from: Int64
    public let to: Int64
    /// How many migrations were applied.
    public let migrations: Int

    /// `schema 24 to 25 (1 migration)`.
    public var description: String {
        "schema \(from) to \(to) (\(migrations) migration\(migrations == 1 ? "" : "s"))"
    }
}
