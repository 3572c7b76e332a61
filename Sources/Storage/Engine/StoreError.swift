/// A storage failure with a stable code and a message that keeps the database's own words.
///
/// The code is what callers branch on (the ingest server answers 503 for every code, so Apple
/// retries); the message keeps the SQLite result code and `sqlite3_errmsg` text for the log.
public struct StoreError: Error, CustomStringConvertible, Sendable {
    /// The kind of failure, stable across releases and back ends.
    public enum Code: String, Sendable {
        /// The store is closed, or the database cannot be opened at all.
        case unavailable
        /// The file is not a database, or its content is damaged.
        case corrupt
        /// Another connection or process held a lock for longer than the busy timeout.
        case busy
        /// The request or the database schema is not acceptable (bad input, bad SQL, unknown schema version).
        case invalid
        /// The operating system failed to read, write or sync the file (disk full, I/O error).
        case io
    }

    /// The kind of failure.
    public var code: Code
    /// Whether the disk, or a file size limit, refused a write (SQLite's `SQLITE_FULL`, `ENOSPC`,
    /// `EFBIG`): said so to an operator rather than as the engine's words alone.
    public var isDiskFull = false
    /// Whether the database file itself is damaged (SQLite's `SQLITE_CORRUPT`, `SQLITE_NOTADB`):
    /// not a row that does not decode, but pages SQLite cannot read. It does not mend by itself.
    public var isDamagedFile = false
    /// What happened, including the SQLite result code and message when SQLite reported it.
    public var message: String

    /// Creates an error with a code and a human-readable message.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "storage \(code.rawValue): \(message)" }

    /// This error as a problem with `database` (a SQLite path, a PostgreSQL URL without its
    /// password), naming it once: "`what` `database`: `description`", or `description` alone when
    /// the message says "`database`:" already (as "cannot connect to URL: …" does). A message
    /// naming only a file beside the database ("open PATH.lock …") still gets it named.
    public func about(_ database: String, _ what: String = "") -> String {
        guard !message.contains(database + ":") else { return description }
        return (what.isEmpty ? "" : what + " ") + "\(database): \(description)"
    }

    /// Runs `body`, which reads rows and decodes them: an error it throws that is not a
    /// `StoreError` is a stored row that does not decode (`corrupt`).
    public static func decoding<T>(_ body: () throws -> T) throws(StoreError) -> T {
        do { return try body() } catch let error as StoreError { throw error } catch { throw StoreError(.corrupt, "\(error)") }
    }
}
