import Foundation

// The writer over each engine: how it opens, makes commits durable and closes.

extension Writer {
    /// The writer on SQLite file `path`: migrated, committing without waiting for the disk (its
    /// `WALFlusher` releases each answer once the WAL holding it is on disk), its WAL reserved
    /// when `reservesWAL`, and checkpointed and truncated at close when `truncatesWALOnClose`.
    static func sqlite(
        path: String, handOff: any NotificationHandOff, onCommit: (@Sendable (CommittedBatch) -> Void)?,
        onRejectsFailed: (@Sendable (StoreError) -> Void)?, reservesWAL: Bool, truncatesWALOnClose: Bool,
        flush: @escaping WALFlusher.Flush, onFlush: WALFlusher.Observe?, checkpointer: Checkpointer,
        durableEvents: DurableEvents, damage: DatabaseDamage
    ) throws(StoreError) -> Writer {
        // Another program's database, or one a newer build migrated, is refused before the
        // writer's first statement turns it to WAL: a refused file is left byte for byte as it was.
        let existed = FileManager.default.fileExists(atPath: path)
        if existed {
            let probe = Migrator(connection: try SQLiteConnection(path: path, role: .readOnly))
            try probe.requireRevenueDotsOrEmpty()
            try probe.requireNoUnknownVersions()
        }
        let connection = try SQLiteConnection(path: path, role: .writer)
        connection.onWALCommit { frames in checkpointer.committed(walFrames: frames) }
        let upgrade = try Migrator(connection: connection).migrate()
        // Commits do not wait for the disk; the flusher holds every answer until they are on it.
        try connection.execute(script: "PRAGMA synchronous = NORMAL;")
        guard let walPath = connection.walPath, let databasePath = connection.databasePath else {
            throw StoreError(.unavailable, "SQLite names no WAL file for \(path)")
        }
        var warnings = existed ? [] : [Self.createdWarning(path)]
        // Best effort, and only a matter of speed: without the reserve the WAL grows as it is written.
        if reservesWAL {
            let pageSize = try connection.query("PRAGMA page_size").first?.first?.integerValue ?? 4096
            if let failure = WALReserve.fill(
                walPath: walPath, to: WALReserve.bytes(frames: Checkpointer.restartFrames, pageSize: Int(pageSize)),
                holding: connection)
            {
                warnings.append(
                    "the WAL could not be given its full size at start, so it grows as it is written (slower under load): \(failure)"
                )
            }
        }
        let anonymousIds = try DatabaseSettings.anonymousIds(on: connection)
        let flusher = try WALFlusher(walPath: walPath, databasePath: databasePath, flush: flush, observe: onFlush)
        return Writer(
            connection: connection, durability: flusher, handOff: handOff, onCommit: onCommit,
            onRejectsFailed: onRejectsFailed, anonymousIds: anonymousIds, warnings: warnings, upgrade: upgrade,
            durableEvents: durableEvents,
            damage: damage,
            closing: {
                // Best effort: a failed checkpoint leaves the WAL in place, and SQLite replays it on the next open.
                if truncatesWALOnClose { _ = try? connection.query("PRAGMA wal_checkpoint(TRUNCATE)") }
            })
    }

    /// The writer on a PostgreSQL database: migrated under the migration lock; each commit is
    /// durable when it returns (`synchronous_commit`), and each transaction holds the cluster-wide
    /// write lock (`PostgresConnection.beginWrite`).
    static func postgres(
        url: PostgresURL, use: PostgresUse, handOff: any NotificationHandOff, onCommit: (@Sendable (CommittedBatch) -> Void)?,
        onRejectsFailed: (@Sendable (StoreError) -> Void)?
    ) throws(StoreError) -> Writer {
        let connection = try PostgresConnection(url: url, use: use)
        let migrated = try PostgresMigrator(connection: connection).migrate()
        return Writer(
            connection: connection, durability: DurableOnCommit(), handOff: handOff, onCommit: onCommit,
            onRejectsFailed: onRejectsFailed, anonymousIds: try DatabaseSettings.anonymousIds(on: connection),
            warnings: migrated.created ? [createdWarning(url.description, mistake: "URL (its host or database)")] : [],
            upgrade: migrated.upgrade)
    }

    /// Said at a start that found no database and made an empty one: expected the first time,
    /// and the only sign of a wrong path or an unmounted volume on a restart, where every
    /// customer would be served as new.
    static func createdWarning(_ database: String, mistake: String = "path (or the volume it is on)") -> String {
        "no RevenueDot database was at \(database), so an empty one was made: expected on a first start; on a restart, "
            + "stop the server, as the \(mistake) is not the one that holds the data"
    }
}
