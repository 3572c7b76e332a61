import Synchronization

/// The highest event position on disk, on SQLite, whose readers see a commit before the WAL
/// flusher has made it durable: `/v1/events` lists events up to it only, so a power loss cannot
/// take back an event a consumer has read (and whose position it holds as its cursor).
///
/// At open, every event in the database is on disk (`adopt`); the writer asks `highestSQL`
/// after each commit that wrote events (`WriteTransaction.noteEventsWritten`), and raises the
/// position to its answer once the flush of that commit has returned. PostgreSQL needs none: a
/// commit is durable when readers can see it.
public final class DurableEvents: Sendable {
    private let highest = Atomic<Int64>(0)

    init() {}

    /// The highest position on disk.
    public var position: Int64 { highest.load(ordering: .acquiring) }

    /// The query that finds the highest position given, run on the writer's connection right
    /// after a commit.
    var highestSQL: String { EventPositions.highestSQL }

    /// Raises the position to `position`; never lowers it.
    func raise(to position: Int64) {
        highest.max(position, ordering: .acquiringAndReleasing)
    }

    /// Takes the highest position of the database as it is at open: all of it is on disk.
    func adopt(in transaction: ReadTransaction) throws(StoreError) {
        raise(to: try EventRows.highestPosition(from: transaction))
    }
}
