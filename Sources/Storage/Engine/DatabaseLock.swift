import Foundation
import Synchronization

/// One process writing a database at a time: `revenuedot serve` and `revenuedot replay` hold an
/// exclusive `flock` on `<database>.lock` for as long as their store is open.
///
/// SQLite would let two servers share the file, each with its own scheduler, webhook workers and
/// WAL reservation (a second one stopping truncated the running one's); a replay under a running
/// server would rebuild state beneath it. The lock is on a file of its own, not the database,
/// whose descriptors belong to SQLite: closing another descriptor of the database would drop the
/// POSIX locks SQLite holds on it. The kernel releases the lock when the process ends, however it
/// ends, so a crash leaves nothing to clean up. The lock, and SQLite's WAL, go by name: a store
/// that writes refuses a database file with more than one (`secondNameProblem`).
public final class DatabaseLock: Sendable {
    private let descriptor: Int32
    private let released = Atomic<Bool>(false)
    /// The lock file, and whether this lock made it (a refused database leaves nothing behind).
    private let path: String
    private let created: Bool

    /// Takes the lock beside `databasePath` (through a symbolic link, beside the file it names),
    /// or throws `.unavailable` naming the process that holds it.
    ///
    /// A lock is held only on the file the path names now: one a refused start removed
    /// (`discard`) after this process opened it is let go and the path opened again, so two
    /// processes never hold locks on two files for one database.
    init(databasePath: String) throws(StoreError) {
        let path = Self.lockPath(databasePath)
        self.path = path
        (descriptor, created) = try Self.lock(path, of: databasePath)
        // Who holds it, for the message another process gives.
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = pwrite(descriptor, pid, pid.count, 0)
    }

    /// Why a process may not write the database at `databasePath` under this lock, when the file
    /// has another name (a hard link): that name has a lock file of its own, and SQLite a WAL of
    /// its own, so a process opening it by that name would write the file beside this one.
    static func secondNameProblem(_ databasePath: String) -> String? {
        var status = stat()
        guard stat(databasePath, &status) == 0, status.st_nlink > 1 else { return nil }
        return "\(databasePath) has \(status.st_nlink) names (hard links): a process opening it by another name would "
            + "write it beside this one, each with its own WAL, and lose what both answered; keep one name (remove the "
            + "other links)"
    }

    /// The descriptor of the lock file at `path`, locked, and whether this call made the file.
    private static func lock(_ path: String, of databasePath: String) throws(StoreError) -> (Int32, Bool) {
        // A path that never names the file just locked (another program replacing it, a file
        // system whose inode numbers move) fails after a few tries rather than spinning.
        for _ in 0..<10 {
            var descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            let created = descriptor >= 0
            if descriptor < 0, errno == EEXIST { descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644) }
            guard descriptor >= 0 else {
                let failure = errno
                if failure == ENOENT,
                    let missing = SQLiteFiles.missingFolder(URL(fileURLWithPath: path).deletingLastPathComponent().path)
                {
                    throw StoreError(.unavailable, missing)
                }
                throw StoreError(.unavailable, "open \(path) to lock the database: \(String(cString: strerror(failure)))")
            }
            let code = lockExclusively(descriptor)
            guard code == 0 else {
                let holder = Self.holder(descriptor)
                close(descriptor)
                guard code == EWOULDBLOCK else {
                    throw StoreError(.unavailable, "lock \(path): \(String(cString: strerror(code)))")
                }
                throw StoreError(.unavailable, Self.inUse(databasePath, by: holder))
            }
            if Self.isNamed(descriptor, by: path) {
                giveToDatabaseOwner(descriptor, of: databasePath)
                return (descriptor, created)
            }
            close(descriptor)
        }
        throw StoreError(.unavailable, "lock \(path): the file was replaced each time it was locked")
    }

    /// Run as root (`import`, `replay`, `backfill` by an operator), gives the lock file the owner
    /// and group of the database, else of its folder, as SQLite gives its WAL and shared-memory
    /// files: a lock file left to root is one the service's user cannot open. A failure leaves it
    /// as it is (the service's start then says why).
    private static func giveToDatabaseOwner(_ descriptor: Int32, of databasePath: String) {
        guard geteuid() == 0 else { return }
        var owner = stat()
        let folder = (databasePath as NSString).deletingLastPathComponent
        guard stat(databasePath, &owner) == 0 || stat(folder.isEmpty ? "." : folder, &owner) == 0 else { return }
        var current = stat()
        guard fstat(descriptor, &current) == 0, current.st_uid != owner.st_uid || current.st_gid != owner.st_gid else {
            return
        }
        _ = fchown(descriptor, owner.st_uid, owner.st_gid)
    }

    /// Takes the exclusive lock on `descriptor`: 0, or the errno of the last try. A probe
    /// (`holderProblem`) holds a shared lock for a moment; that is waited out for up to a second
    /// (a probe descheduled on a busy machine), while a process that holds the lock for longer
    /// keeps it.
    private static func lockExclusively(_ descriptor: Int32) -> Int32 {
        var tries = 0
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            tries += 1
            guard code == EWOULDBLOCK, tries < 200 else { return code }
            usleep(5_000)
        }
        return 0
    }

    /// Whether `path` names the file open at `descriptor` (not one removed since it was opened).
    private static func isNamed(_ descriptor: Int32, by path: String) -> Bool {
        var open = stat()
        var named = stat()
        guard fstat(descriptor, &open) == 0, stat(path, &named) == 0 else { return false }
        return open.st_dev == named.st_dev && open.st_ino == named.st_ino
    }

    /// Whether another process holds the lock of the database at `databasePath` now (a running
    /// `serve` or `replay`): commands that can work through a running server ask first.
    public static func isHeldByAnother(databasePath: String) -> Bool { holderProblem(databasePath: databasePath) != nil }

    /// The process holding the lock, as it wrote itself in the lock file: its pid, and for a
    /// server, where it answers (`announce(servingAt:)`).
    public struct Holder: Sendable, Equatable {
        public var pid: Int32?
        /// Where the server that holds the database answers; nil for another command.
        public var serving: Serving?

        public struct Serving: Sendable, Equatable {
            public var host: String
            public var port: UInt16
        }
    }

    /// Who holds the lock of the database at `databasePath` now, when another process does.
    public static func holder(databasePath: String) -> Holder? {
        guard let line = heldLine(databasePath) else { return nil }
        let words = line.split(separator: " ")
        var holder = Holder(pid: pid(in: line))
        if words.count == 4, words[1] == "serve", let port = UInt16(words[3]) {
            holder.serving = Holder.Serving(host: String(words[2]), port: port)
        }
        return holder
    }

    /// Says in the lock file that this process serves the database at `host`, `port`: a command
    /// beside it then works through this server, not through whatever its configuration names.
    func announce(servingAt host: String, port: UInt16) {
        guard !host.contains(" "), !host.contains("\n") else { return }
        let line = Array("\(getpid()) serve \(host) \(port)\n".utf8)
        // Over the pid line, longer, then cut to its length: a reader never sees the file empty.
        _ = pwrite(descriptor, line, line.count, 0)
        _ = ftruncate(descriptor, off_t(line.count))
    }

    /// What another process holding the lock of the database at `databasePath` now means to a
    /// process that would write it (the line the lock's `init` throws), or nil when none does:
    /// asked before anything opens or creates the database.
    public static func holderProblem(databasePath: String) -> String? {
        heldLine(databasePath).map { inUse(databasePath, by: pid(in: $0)) }
    }

    /// The lock file's line when another process holds the lock now (a probe's shared lock
    /// fails); nil when none does.
    private static func heldLine(_ databasePath: String) -> String? {
        let descriptor = open(lockPath(databasePath), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard flock(descriptor, LOCK_SH | LOCK_NB) != 0 else {
            _ = flock(descriptor, LOCK_UN)
            return nil
        }
        return errno == EWOULDBLOCK ? content(descriptor) : nil
    }

    private static func inUse(_ databasePath: String, by holder: Int32?) -> String {
        let who =
            holder == getpid() ? "this process already" : "another RevenueDot process\(holder.map { " (pid \($0))" } ?? "")"
        return "\(databasePath) is in use by \(who) (serve, replay, or a command such as import or backfill): "
            + "one process writes a database at a time"
    }

    /// Holds a shared lock on the lock file of `databasePath`, opened for reading (one another
    /// user owns, say), until the descriptor returned is closed: no process takes the lock
    /// meanwhile. Nil when there is no lock file, or a process holds the lock.
    public static func holdShared(databasePath: String) -> Int32? {
        let descriptor = open(lockPath(databasePath), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        guard flock(descriptor, LOCK_SH | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    /// `<database>.lock`, beside the file a symbolic link leads to.
    static func lockPath(_ databasePath: String) -> String {
        URL(fileURLWithPath: databasePath).resolvingSymlinksInPath().path + ".lock"
    }

    /// Lets the lock go (once; later calls do nothing). The store calls it when everything it
    /// opened on the database is closed.
    func release() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        close(descriptor)
    }

    /// Lets the lock go when the database it guards was refused before anything was written,
    /// removing the lock file if this lock made it: a database `serve` refused is left as it
    /// was found.
    func discard() {
        guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
        // Removed while held: a process that opened it before takes its lock only after this
        // close, finds the path no longer names it, and opens the path again (`init`).
        if created { unlink(path) }
        close(descriptor)
    }

    /// The pid the holder wrote, if it reads as one.
    private static func holder(_ descriptor: Int32) -> Int32? {
        pid(in: content(descriptor))
    }

    /// The pid a lock file's line starts with.
    private static func pid(in line: String) -> Int32? {
        line.split(separator: " ").first.flatMap { Int32($0) }
    }

    /// The lock file's line: `PID`, or `PID serve HOST PORT`.
    private static func content(_ descriptor: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 320)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return "" }
        return String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

extension Store {
    /// Says in the database's lock file that this process serves it at `host`, `port`, so a
    /// command beside it finds this server (`DatabaseLock.holder(databasePath:)`). Nothing
    /// without the lock (PostgreSQL, a store opened to read).
    public func announceServing(at host: String, port: UInt16) {
        lock?.announce(servingAt: host, port: port)
    }
}
