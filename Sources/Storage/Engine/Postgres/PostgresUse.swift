/// How a process uses a PostgreSQL database, held as a session-level advisory lock by its
/// writer's connection while it is connected. Servers and the commands that apply inputs beside
/// them (`import`, `reconcile`, `backfill`) share the database; `replay`, which deletes and
/// rebuilds every derived row, and `migrate-db`, which fills it, must have it alone. So a replay is refused while any node runs,
/// and a node is refused (answers 503, or does not start) while a replay runs.
enum PostgresUse: Sendable {
    case shared
    case exclusive

    /// The advisory lock key ("RDUSERS!" in ASCII).
    static let lockKey: Int64 = 0x5244_5553_4552_5321

    /// Takes the lock without waiting; answers true (1) when taken.
    var trySQL: String {
        switch self {
        case .shared: "SELECT pg_try_advisory_lock_shared(?)"
        case .exclusive: "SELECT pg_try_advisory_lock(?)"
        }
    }

    /// Why the lock could not be had, in one line.
    func refusal(_ url: PostgresURL) -> String {
        switch self {
        case .shared:
            "\(url) is being replayed or migrated into by another process (revenuedot replay or migrate-db): "
                + "wait for it to finish"
        case .exclusive:
            "\(url) is in use by a running server or command: stop every node first"
        }
    }
}
