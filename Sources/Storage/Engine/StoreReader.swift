/// A database opened for reading only, for commands that look at what a server stored: no writer,
/// no migration, nothing written, so such a command works beside running servers.
///
/// On SQLite (`SQLITE_OPEN_READONLY`): no checkpoint and nothing written to the WAL either, so it
/// also works on a copy. Without write access to the files it works where SQLite can read a WAL
/// database read-only: with its `-shm` file there (as while a server runs, or after it was
/// killed); after a clean stop that file is gone and SQLite refuses ("attempt to write a readonly
/// database").
///
/// The schema must be this build's (`Migrator.requireCurrent`): an older database is migrated by
/// the server, not by a command that reads it.
public final class StoreReader: Sendable {
    let readers: ReaderPool

    /// Opens the database at `path`, which must exist and be at this build's schema.
    public convenience init(path: String) throws(StoreError) {
        try self.init { () throws(StoreError) in
            let connection = try SQLiteConnection(path: path, role: .readOnly)
            try Migrator(connection: connection).requireCurrent()
            return connection
        }
    }

    /// Opens the PostgreSQL database at `url`, which must be at a schema this build reads; every
    /// transaction of the session is read-only.
    public convenience init(postgres url: PostgresURL) throws(StoreError) {
        try self.init { () throws(StoreError) in
            let connection = try PostgresConnection(url: url)
            try connection.execute(script: "SET default_transaction_read_only = on")
            try PostgresMigrator(connection: connection).requireCurrent()
            return connection
        }
    }

    /// One connection from `open`, opened now so that a database it cannot read fails here.
    private init(open: @escaping @Sendable () throws(StoreError) -> any ReaderConnection) throws(StoreError) {
        readers = ReaderPool(size: 1, open: open)
        do throws(StoreError) {
            try readers.read { _ throws(StoreError) in }
        } catch {
            readers.close()
            throw error
        }
    }

    /// Runs `body` in one read transaction: a consistent snapshot of committed data.
    public func read<T: Sendable>(_ body: @Sendable (ReadTransaction) throws(StoreError) -> T) throws(StoreError) -> T {
        try readers.snapshot(body)
    }

    /// Notifications matching `filter`, newest first (by `receivedAt`, then by insertion order).
    public func notifications(_ filter: NotificationFilter) throws(StoreError) -> [NotificationRecord] {
        try readers.notifications(filter)
    }

    /// The notification with this UUID, or nil.
    public func notification(uuid: String) throws(StoreError) -> NotificationRecord? {
        try readers.notification(uuid: uuid)
    }

    /// The reject counts by status and the newest rejects (newest first), as committed.
    public func rejectLog() throws(StoreError) -> RejectLog {
        try readers.rejectLog()
    }

    /// Closes the connection; reads fail from now on.
    public func close() {
        readers.close()
    }
}
