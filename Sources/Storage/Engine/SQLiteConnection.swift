import CSQLite
import Glibc

/// One SQLite connection (`sqlite3 *`), closed when the object goes away.
///
/// Part of the C adapter. Connections are opened with `SQLITE_OPEN_NOMUTEX` (SQLite's multi-thread
/// mode), so a connection must never be used by two threads at once. The store keeps that
/// discipline by construction: the writer connection lives on the writer thread only, and each
/// reader connection lives inside a `Mutex`.
final class SQLiteConnection {
    /// What the connection is for; it decides the open flags and PRAGMAs.
    enum Role {
        /// The one connection that writes: creates the file and switches it to WAL.
        case writer
        /// A connection that only reads (`PRAGMA query_only`); the file must exist.
        case reader
        /// The connection that copies the WAL into the database file; the file must exist.
        case checkpointer
        /// A reader opened read-only (`SQLITE_OPEN_READONLY`), for a process that must not write
        /// the file at all (`StoreReader`); the file must exist.
        case readOnly
        /// A reader of a file nothing writes now and that has no WAL beside it, opened as it
        /// stands (SQLite's `immutable`): it makes no WAL or shared-memory file (`DatabaseProbe`).
        case immutable
        /// The file a copy is written into (`DatabaseBackup`): created readable and writable by its
        /// owner only, left in whatever journal mode the copied pages give it.
        case copy
    }

    private let handle: OpaquePointer
    /// Kept alive while SQLite holds a pointer to it (see `onWALCommit`).
    private var walObserver: WALObserver?
    private var statements: [String: SQLiteStatement] = [:]
    /// The same statements by the address of their SQL's UTF-8 bytes: a hint that spares hashing
    /// the whole text (a few hundred bytes) on every call, since the writer's SQL is literals,
    /// whose bytes never move. A hit is only taken when the text is equal too (the same literal
    /// compares in constant time), so text built at run time at a reused address is never confused.
    private var statementsByAddress: [UInt: SQLiteStatement] = [:]
    private static let statementCacheLimit = 64
    /// How long a statement waits for another connection's lock before failing with `.busy`.
    static let busyTimeoutMilliseconds: Int32 = 5000
    /// How much of the database file a reader maps (SQLite caps it at its compile-time maximum,
    /// 2 GiB in Debian's build); the rest is read with read().
    static let readerMapBytes: Int64 = 1 << 31

    /// Turns off SQLite's memory statistics (`SQLITE_CONFIG_MEMSTATUS`) before the first connection
    /// opens: with them, every allocation SQLite makes takes a process-wide mutex, about a hundred
    /// times per stored notification, shared by the writer, the checkpointer and the readers.
    /// RevenueDot never reads those statistics. Too late once SQLite is initialized (another
    /// library opened a database first): the call then fails and changes nothing, which is harmless.
    private static let configured: Void = {
        _ = CSQLite_configNoMemoryStatistics()
    }()

    /// Creates an empty database file at `path`, readable and writable by its owner only, unless
    /// something is there already. SQLite gives the WAL and shared-memory files the mode of the
    /// database file, so all three stay private: they hold Apple's signed payloads and customers'
    /// purchases. (SQLite alone would create them with the process's umask, usually 0644.) If
    /// this fails, SQLite's own create says why.
    private static func createPrivately(_ path: String) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 { close(descriptor) }
    }

    /// Opens `path` and applies the store's PRAGMAs (WAL, synchronous=FULL, busy timeout, foreign
    /// keys). The writer then lowers `synchronous` to NORMAL: its flusher syncs each commit instead.
    init(path: String, role: Role) throws(StoreError) {
        _ = Self.configured
        var flags = (role == .readOnly || role == .immutable ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOMUTEX
        // The WAL files too, which SQLite would also open read-only without a word.
        if role == .writer, let unwritable = SQLiteFiles.unwritable(path) { throw StoreError(.unavailable, unwritable) }
        if role == .writer || role == .copy {
            flags |= SQLITE_OPEN_CREATE
            Self.createPrivately(path)
        }
        var connection: OpaquePointer?
        var name = path
        if role == .immutable {
            // A URI's path escapes ?, # and %, which a file name may hold.
            flags |= SQLITE_OPEN_URI
            name = "file:\(path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? path)?immutable=1"
        }
        let result = sqlite3_open_v2(name, &connection, flags, nil)
        guard result == SQLITE_OK, let connection else {
            // SQLite says "disk I/O error" of a directory and "unable to open database file" of a
            // file it may not read: said of the file instead, when that is why.
            let error =
                Self.fileProblem(path).map { StoreError(.unavailable, $0) }
                ?? StoreError(sqlite: result, connection: connection, context: "open \(path)")
            // A failed open may still allocate a handle; it must be closed (close_v2 of NULL is a no-op).
            sqlite3_close_v2(connection)
            throw error
        }
        self.handle = connection
        // SQLite opens a file this user may not write read-only, silently: the store would start
        // and answer its health check, then fail the first commit.
        if role == .writer || role == .copy, sqlite3_db_readonly(connection, "main") == 1 {
            throw StoreError(.unavailable, "\(path) cannot be written by this user: check its owner and mode")
        }
        do {
            try configure(role: role)
        } catch {
            // Said of the file, not of the PRAGMA that first read its header.
            switch sqlite3_errcode(connection) & 0xff {
            case SQLITE_NOTADB: throw StoreError.damagedFile("\(path) is not a SQLite database")
            case SQLITE_CORRUPT: throw StoreError.damagedFile("\(path) is a damaged SQLite database (cut short, or overwritten)")
            // A reader that cannot make the shared-memory file: "unable to open database file" on
            // a read-only mount, "attempt to write a readonly database" in a folder it may not write.
            case SQLITE_CANTOPEN where role != .writer, SQLITE_READONLY where role != .writer:
                throw SQLiteFiles.unreadable(path).map { StoreError(.unavailable, $0) } ?? error
            default: throw error
            }
        }
    }

    /// Why the file at `path` cannot be a database this user opens, if the file system says.
    static func fileProblem(_ path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        if status.st_mode & S_IFMT == S_IFDIR { return "\(path) is a directory, not a database file" }
        if access(path, R_OK) != 0 { return "\(path) cannot be read by this user: check its owner and mode" }
        return nil
    }

    deinit {
        if walObserver != nil { sqlite3_wal_hook(handle, nil, nil) }
        statements.removeAll()
        statementsByAddress.removeAll()
        // close_v2 only fails for a handle that is not a connection; it defers the close until any
        // statement still alive elsewhere is finalized, so it is safe regardless of release order.
        sqlite3_close_v2(handle)
    }

    private func configure(role: Role) throws(StoreError) {
        // The checkpointer waits only briefly: a RESTART checkpoint holds up the writer while it
        // waits, and the writer's own busy timeout must not run out behind it.
        let busy = sqlite3_busy_timeout(handle, role == .checkpointer ? 200 : Self.busyTimeoutMilliseconds)
        guard busy == SQLITE_OK else { throw StoreError(sqlite: busy, connection: handle, context: "busy_timeout") }
        // The first statement reads the file header: a file that is not a database fails here.
        if role == .writer {
            let mode = try query("PRAGMA journal_mode = WAL").first?.first?.textValue
            guard mode?.lowercased() == "wal" else {
                throw StoreError(.unavailable, "PRAGMA journal_mode = WAL: the database stayed in \(mode ?? "no") mode")
            }
        }
        // temp_store MEMORY keeps savepoint journals (one per stored item) in memory: they would
        // otherwise spill to a temporary file once a batch modified 64 KiB, writing every page twice.
        try execute(script: "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY;")
        // Readers map the database file: a page already in the OS cache costs no read() and no
        // copy. Only the database file is mapped, never the WAL, and RevenueDot never shrinks the
        // file (no VACUUM, no auto-vacuum), so a mapped page cannot vanish under a reader.
        if role == .reader || role == .readOnly || role == .immutable {
            try execute(script: "PRAGMA query_only = ON; PRAGMA mmap_size = \(Self.readerMapBytes);")
        }
    }

    /// Copies this whole database into `destination`, replacing what it held, as of one moment:
    /// SQLite's online backup in a single step, under one read transaction, so writers on other
    /// connections go on (WAL) and the copy is consistent. Retries while a lock is held, for
    /// up to the busy timeout.
    func copy(into destination: SQLiteConnection) throws(StoreError) {
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw StoreError(sqlite: sqlite3_errcode(destination.handle), connection: destination.handle, context: "backup_init")
        }
        var result = SQLITE_OK
        var waitedMilliseconds: Int32 = 0
        repeat {
            result = sqlite3_backup_step(backup, -1)
            if result == SQLITE_BUSY || result == SQLITE_LOCKED {
                guard waitedMilliseconds < Self.busyTimeoutMilliseconds else { break }
                sqlite3_sleep(50)
                waitedMilliseconds += 50
            }
        } while result == SQLITE_OK || result == SQLITE_BUSY || result == SQLITE_LOCKED
        let finished = sqlite3_backup_finish(backup)
        guard result == SQLITE_DONE else {
            throw StoreError(sqlite: result, connection: destination.handle, context: "backup_step")
        }
        guard finished == SQLITE_OK else {
            throw StoreError(sqlite: finished, connection: destination.handle, context: "backup_finish")
        }
    }

    // MARK: - Running SQL

    /// Runs one or more statements without arguments (migrations, PRAGMAs).
    func execute(script: String) throws(StoreError) {
        var message: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(handle, script, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard result == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? StoreError.describe(result)
            let extended = sqlite3_extended_errcode(handle)
            var error = StoreError(
                StoreError.code(forSQLite: result),
                "\(StoreError.abbreviate(script)): \(text)\(StoreError.hint(forSQLite: extended)) [SQLite result code \(extended)]"
            )
            error.isDamagedFile = StoreError.isDamage(forSQLite: result)
            throw error
        }
    }

    /// Runs one statement to completion and returns how many rows it changed.
    @discardableResult
    func run(_ sql: String, _ arguments: [SQLValue] = []) throws(StoreError) -> Int {
        let statement = try cachedStatement(sql)
        return try statement.withBindings(arguments) { () throws(StoreError) -> Int in
            while try statement.step() {}
            return Int(sqlite3_changes64(handle))
        }
    }

    /// Runs one statement and returns all its rows.
    func query(_ sql: String, _ arguments: [SQLValue] = []) throws(StoreError) -> [[SQLValue]] {
        let statement = try cachedStatement(sql)
        return try statement.withBindings(arguments) { () throws(StoreError) -> [[SQLValue]] in
            var rows: [[SQLValue]] = []
            while try statement.step() { rows.append(statement.row()) }
            return rows
        }
    }

    // MARK: - WAL

    /// Calls `observer` after each commit with the number of frames now in the WAL.
    ///
    /// Registering it turns off SQLite's automatic checkpoints on this connection (they share the
    /// hook), so whoever observes takes over checkpointing. `observer` runs on the committing thread.
    func onWALCommit(_ observer: @escaping @Sendable (Int) -> Void) {
        let box = WALObserver(observer)
        walObserver = box
        sqlite3_wal_hook(
            handle,
            { context, _, _, frames in
                guard let context else { return SQLITE_OK }
                Unmanaged<WALObserver>.fromOpaque(context).takeUnretainedValue().call(Int(frames))
                return SQLITE_OK
            },
            Unmanaged.passUnretained(box).toOpaque())
    }

    // MARK: - Connection state

    /// Whether a transaction is open. SQLite rolls a transaction back on its own after some errors
    /// (disk full, I/O error), so the writer asks this after every failure.
    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// SQLite's defensive mode (`SQLITE_DBCONFIG_DEFENSIVE`), which refuses writes to the schema
    /// table even with `writable_schema` on. Some builds turn it on by default; Debian's does not.
    var isDefensive: Bool {
        get { CSQLite_defensive(handle, -1) == 1 }
        set { _ = CSQLite_defensive(handle, newValue ? 1 : 0) }
    }

    /// The database file, as SQLite opened it (symbolic links resolved); nil for an in-memory database.
    var databasePath: String? {
        guard let database = sqlite3_db_filename(handle, "main"), database.pointee != 0 else { return nil }
        return String(cString: database)
    }

    /// The WAL file of the main database as SQLite names it: next to the real file when the path
    /// given to `init` is a symbolic link. Nil for an in-memory or temporary database.
    var walPath: String? {
        guard let database = sqlite3_db_filename(handle, "main"), database.pointee != 0,
            let wal = sqlite3_filename_wal(database)
        else { return nil }
        return String(cString: wal)
    }

    // MARK: - Statement cache

    private func cachedStatement(_ sql: String) throws(StoreError) -> SQLiteStatement {
        let address = sql.utf8.withContiguousStorageIfAvailable { UInt(bitPattern: $0.baseAddress) }
        if let address, let statement = statementsByAddress[address], statement.sql == sql { return statement }
        let statement: SQLiteStatement
        if let cached = statements[sql] { statement = cached } else { statement = try newStatement(sql) }
        if let address {
            if statementsByAddress.count >= Self.statementCacheLimit { statementsByAddress.removeAll(keepingCapacity: true) }
            statementsByAddress[address] = statement
        }
        return statement
    }

    private func newStatement(_ sql: String) throws(StoreError) -> SQLiteStatement {
        let statement = try SQLiteStatement(connection: handle, sql: sql, persistent: true)
        // Bounded so that callers generating SQL cannot grow it without limit.
        if statements.count >= Self.statementCacheLimit {
            statements.removeAll(keepingCapacity: true)
            statementsByAddress.removeAll(keepingCapacity: true)
        }
        statements[sql] = statement
        return statement
    }
}

/// The Swift closure behind `sqlite3_wal_hook`'s context pointer.
private final class WALObserver {
    let call: @Sendable (Int) -> Void
    init(_ call: @escaping @Sendable (Int) -> Void) { self.call = call }
}
