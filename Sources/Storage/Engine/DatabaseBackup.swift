import Foundation
import Threads

/// `revenuedot backup` and `revenuedot restore`: a consistent copy of a SQLite database made
/// while a server writes it, and a copy put back in its place while no server runs.
///
/// Both copy with SQLite's online backup (`SQLiteConnection.copy(into:)`) into a private file
/// beside the target (mode 0600: it holds Apple's signed payloads and customers' purchases),
/// check the copy (`PRAGMA quick_check`, a RevenueDot schema this build knows), sync it, and only
/// then give it its name (a backup links it, never over a file; a restore renames it over the
/// database): a failure at any step leaves the target as it was.
public enum DatabaseBackup {
    /// What a copy holds.
    public struct Summary: Sendable, Equatable {
        /// The copy's size on disk.
        public var bytes: Int64
        /// The newest schema migration applied to it.
        public var schemaVersion: Int64
        /// How many notifications it stores.
        public var notifications: Int
    }

    /// Why `destination` cannot take a backup (its folder is missing, or it exists), or nil.
    public static func destinationProblem(_ destination: String) -> String? {
        let folder = URL(fileURLWithPath: destination).deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            return "the folder \(folder) does not exist: create it, or name a file in another"
        }
        guard !FileManager.default.fileExists(atPath: destination) else {
            return "\(destination) exists already: name a new file (a backup never overwrites one)"
        }
        return folderProblem(folder)
    }

    /// Why this user cannot make files in `folder`, or nil.
    static func folderProblem(_ folder: String) -> String? {
        guard access(folder, W_OK | X_OK) != 0 else { return nil }
        return "cannot create files in the folder \(folder): \(String(cString: strerror(errno)))"
    }

    /// Copies the database at `database` into a new file at `destination`, which must not exist,
    /// in a folder that does (`destinationProblem`). `claimed` is told the unfinished copy's path
    /// (`FILE.partial`) once it is this backup's, before anything is copied into it.
    public static func backup(
        database: String, to destination: String, claimed: (String) -> Void = { _ in }
    ) throws(StoreError) -> Summary {
        guard FileManager.default.fileExists(atPath: database) else {
            throw StoreError(.unavailable, "there is no database at \(database)")
        }
        if let problem = destinationProblem(destination) { throw StoreError(.invalid, problem) }
        let partial = destination + ".partial"
        let claim = try claimPartial(partial)
        defer { close(claim) }
        claimed(partial)
        do {
            try copy(from: database, reading: readRole(of: database), to: partial, damaged: "damaged")
            let summary = try check(partial, copied: database, damaged: "damaged")
            try sync(partial)
            try publish(partial, as: destination)
            return summary
        } catch {
            removeCopy(partial)
            throw writeFailure(error, writing: destination)
        }
    }

    /// Opens `partial` for this backup alone and empties it, holding an exclusive `flock` on it
    /// until the returned descriptor is closed. Refused while another backup to the same file
    /// holds it, and when it is a file a backup did not make: only an empty file, one that
    /// begins as a SQLite database, or one that begins with zeros beside its `-journal` (what a
    /// backup stopped partway leaves: SQLite writes the header page last), is taken over.
    private static func claimPartial(_ partial: String) throws(StoreError) -> Int32 {
        let descriptor = open(partial, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw StoreError(.io, "cannot create \(partial): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw StoreError(.invalid, "another backup is writing \(partial) now: wait for it, or name another file")
        }
        // A second name of a finished backup (one killed between naming its copy and letting the
        // partial name go): the name is let go, never the backup emptied, and a new file made.
        var status = stat()
        if fstat(descriptor, &status) == 0, status.st_nlink > 1 {
            let unlinked = unlink(partial) == 0
            let reason = String(cString: strerror(errno))
            close(descriptor)
            guard unlinked else {
                throw StoreError(.io, "cannot remove \(partial), another name of a finished backup: \(reason)")
            }
            return try claimPartial(partial)
        }
        var header = [UInt8](repeating: 0, count: 16)
        let read = header.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, 16, 0) }
        let unfinished =
            read == 16
            && (header == Array("SQLite format 3\0".utf8)
                || (header.allSatisfy { $0 == 0 } && FileManager.default.fileExists(atPath: partial + "-journal")))
        guard read == 0 || unfinished else {
            close(descriptor)
            throw StoreError(
                .invalid, "\(partial) exists and is not a backup's unfinished copy: move it away, or name another file")
        }
        removeSideFiles(of: partial)
        guard ftruncate(descriptor, 0) == 0, fchmod(descriptor, 0o600) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw StoreError(.io, "cannot empty \(partial): \(reason)")
        }
        return descriptor
    }

    /// A copy that failed, with the journal SQLite may have left beside it.
    private static func removeCopy(_ path: String) {
        _ = unlink(path)
        removeSideFiles(of: path)
    }

    /// The journal, WAL and shared-memory files SQLite may leave beside a copy, by suffix.
    public static let sideFileSuffixes = ["-journal", "-wal", "-shm"]

    /// The journal, WAL and shared-memory files SQLite may have left beside a copy.
    private static func removeSideFiles(of path: String) {
        for suffix in sideFileSuffixes { _ = unlink(path + suffix) }
    }

    /// `error`, said of `target` when the disk (or a file size limit) stopped the copy.
    private static func writeFailure(_ error: StoreError, writing target: String) -> StoreError {
        guard error.isDiskFull else { return error }
        return StoreError(
            .io,
            "no room to write \(target) (its disk is full, or a file size limit was reached); nothing was kept: "
                + error.message)
    }

    /// What `restore` did.
    public struct Restored: Sendable, Equatable {
        public var summary: Summary
        /// Where the database that was replaced was moved (its WAL beside it), or nil when there
        /// was none.
        public var previous: String?
    }

    /// Puts a copy of `file` in place of the database at `database`, holding the database's lock
    /// (`DatabaseLock`) throughout: refused while `serve` or `replay` runs on it. The database it
    /// replaces is kept beside it as `<database>.before-restore-<UTC time>`, never deleted.
    public static func restore(_ file: String, to database: String, at now: Date) throws(StoreError) -> Restored {
        guard FileManager.default.fileExists(atPath: file) else {
            throw StoreError(.unavailable, "there is no file at \(file)")
        }
        guard access(file, R_OK) == 0 else {
            throw StoreError(.invalid, "cannot read \(file): \(String(cString: strerror(errno)))")
        }
        if let source = FileIdentity(path: file), source == FileIdentity(path: database) {
            throw StoreError(.invalid, "\(file) is the database itself: name a backup of it")
        }
        if file.hasSuffix(".partial") {
            throw StoreError(
                .invalid, "\(file) is a backup's unfinished copy (the backup stopped before it finished): name a finished backup")
        }
        // Reading it would need SQLite to roll the unfinished write back, in a file not its own.
        var journal = stat()
        if stat(file + "-journal", &journal) == 0, journal.st_size > 0 {
            throw StoreError(
                .invalid,
                "\(file) is not a usable backup: the journal beside it says a write to it stopped partway "
                    + "(a backup stopped before it finished leaves FILE.partial so): name a finished backup")
        }
        let folder = URL(fileURLWithPath: database).deletingLastPathComponent().path
        if let problem = folderProblem(folder) { throw StoreError(.invalid, problem) }
        let lock = try DatabaseLock(databasePath: database)
        defer { lock.release() }
        let staging = database + ".restoring"
        removeCopy(staging)
        let summary: Summary
        do {
            try copy(from: file, reading: .readOnly, to: staging, damaged: "not a usable backup")
            summary = try check(staging, copied: file, damaged: "not a usable backup")
            // Event positions came with schema 4; an older copy gets them when it migrates.
            if summary.schemaVersion >= 4 { try continuePositions(of: database, in: staging) }
            try takeOwner(for: staging, of: database, in: folder)
            try sync(staging)
        } catch {
            removeCopy(staging)
            throw writeFailure(error, writing: staging)
        }
        var previous: String?
        if FileManager.default.fileExists(atPath: database) {
            let kept = keptName(for: database, at: now)
            // The WAL moves with its database under the matching name, so the kept file opens
            // with every commit it had; the shared-memory index is rebuilt from the WAL.
            try rename(database, to: kept)
            // An empty WAL holds no commit: it goes, rather than sit beside the kept file.
            var wal = stat()
            if stat(database + "-wal", &wal) == 0 {
                if wal.st_size > 0 { try rename(database + "-wal", to: kept + "-wal") } else { _ = unlink(database + "-wal") }
            }
            _ = unlink(database + "-shm")
            previous = kept
        }
        try rename(staging, to: database)
        return Restored(summary: summary, previous: previous)
    }

    // MARK: - Steps

    /// Run as root (the natural way to restore from `/var/backups`), gives the copy, and the
    /// lock file the restore made, the owner and group of the database it replaces, else of its
    /// folder: files left to root are ones the service's user cannot open. Another user's are its
    /// own already.
    private static func takeOwner(for staging: String, of database: String, in folder: String) throws(StoreError) {
        guard geteuid() == 0 else { return }
        var owner = stat()
        guard stat(database, &owner) == 0 || stat(folder, &owner) == 0 else { return }
        for path in [staging, DatabaseLock.lockPath(database)] where chown(path, owner.st_uid, owner.st_gid) != 0 {
            throw StoreError(.io, "chown \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// Moves the copy's event positions past those of the database it replaces, if that exists
    /// (`EventPositions.moveUp`); one that cannot be read counts as unknown.
    private static func continuePositions(of database: String, in staging: String) throws(StoreError) {
        var replaced: Int64? = 0
        if FileManager.default.fileExists(atPath: database) {
            replaced = try? EventPositions.highest(in: SQLiteConnection(path: database, role: .readOnly))
        }
        try EventPositions.moveUp(toReach: replaced, in: SQLiteConnection(path: staging, role: .copy))
    }

    /// How a backup reads the database: as one of the server's readers (`query_only`) when this
    /// user may write it and its folder, so that SQLite, closing the last connection to it (no
    /// server runs), removes the WAL and shared-memory files the read made, as it does after a
    /// server; read-only otherwise, which leaves them beside a stopped database, empty.
    private static func readRole(of database: String) -> SQLiteConnection.Role {
        let folder = URL(fileURLWithPath: database).deletingLastPathComponent().path
        return access(database, R_OK | W_OK) == 0 && access(folder, W_OK | X_OK) == 0 ? .reader : .readOnly
    }

    /// Copies `source`, opened as `role`, into `destination`; a source SQLite cannot read whole
    /// is `damaged` (said so in one line, naming it).
    private static func copy(
        from source: String, reading role: SQLiteConnection.Role, to destination: String, damaged: String
    ) throws(StoreError) {
        let from = try SQLiteConnection(path: source, role: role)
        // A copy of a file that is not RevenueDot's, or from a newer build, is refused before it is made.
        do { try Migrator(connection: from).requireKnown() } catch  where error.code == .corrupt {
            throw StoreError(.corrupt, "\(source) is \(damaged): SQLite cannot read its schema")
        }
        let into = try SQLiteConnection(path: destination, role: .copy)
        do { try from.copy(into: into) } catch  where error.code == .corrupt {
            throw StoreError(.corrupt, "\(source) is \(damaged): SQLite could not read all of it")
        }
        // A copy is one file: the copied pages say WAL, and a WAL file opened to be read (a
        // restore, a look with sqlite3) gets -wal and -shm files beside it. A server that opens
        // it takes WAL back.
        try into.execute(script: "PRAGMA journal_mode = DELETE")
    }

    /// Reads the copy at `path` back: SQLite finds it whole, and it is a schema this build can
    /// serve. A copy that is not whole says that `copied` is `damaged`, with SQLite's first
    /// problem, in one line.
    private static func check(_ path: String, copied: String, damaged: String) throws(StoreError) -> Summary {
        var summary = Summary(bytes: 0, schemaVersion: 0, notifications: 0)
        do {
            let connection = try SQLiteConnection(path: path, role: .copy)
            let verdict: [String]
            do {
                verdict = try connection.query("PRAGMA quick_check").compactMap { $0.first?.textValue }
            } catch  where error.code == .corrupt {
                throw StoreError(.corrupt, "\(copied) is \(damaged): SQLite's quick_check could not read all of it")
            }
            guard verdict == ["ok"] else {
                // quick_check's rows may hold several lines each, headed "*** in database main ***".
                let problems = verdict.flatMap { $0.split(separator: "\n") }.map { $0.trimmingCharacters(in: .whitespaces) }
                    .filter { !$0.isEmpty && !$0.hasPrefix("***") }
                let more = problems.count > 1 ? " (and \(problems.count - 1) more)" : ""
                throw StoreError(
                    .corrupt, "\(copied) is \(damaged): SQLite's quick_check says \"\(problems.first ?? "not ok")\"\(more)")
            }
            summary.schemaVersion = try Migrator(connection: connection).requireKnown().max() ?? 0
            summary.notifications = try NotificationCounts.stored(in: connection)
        }
        // Measured once the connection is closed, its WAL copied into the file.
        var status = stat()
        if stat(path, &status) == 0 { summary.bytes = Int64(status.st_size) }
        return summary
    }

    /// Flushes the file's bytes to disk, so that the name it is given next never shows content
    /// a power cut could lose.
    private static func sync(_ path: String) throws(StoreError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw StoreError(.io, "open \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            let number = errno
            var error = StoreError(.io, "fsync \(path): \(String(cString: strerror(number)))")
            error.isDiskFull = number == ENOSPC || number == EDQUOT
            throw error
        }
    }

    /// Gives the finished copy at `partial` its name, `destination`, which must not exist:
    /// link(2) refuses a name that exists, so a file made there during the copy is never
    /// replaced. A file system without hard links (FAT, say) has the name taken first, empty and
    /// exclusively, and the copy renamed over that one. The folder is synced: the name is durable.
    private static func publish(_ partial: String, as destination: String) throws(StoreError) {
        let appeared = StoreError(
            .invalid, "\(destination) appeared during the backup: name a new file (a backup never overwrites one)")
        guard link(partial, destination) == 0 else {
            let number = errno
            if number == EEXIST { throw appeared }
            guard [EPERM, EOPNOTSUPP, ENOSYS].contains(number) else {
                throw StoreError(.io, "cannot name the copy \(destination): \(String(cString: strerror(number)))")
            }
            let reserved = open(destination, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard reserved >= 0 else {
                if errno == EEXIST { throw appeared }
                throw StoreError(.io, "cannot create \(destination): \(String(cString: strerror(errno)))")
            }
            var made = stat()
            _ = fstat(reserved, &made)
            close(reserved)
            do throws(StoreError) {
                return try rename(partial, to: destination)
            } catch {
                // The empty file this backup reserved goes, not one made there since.
                var now = stat()
                if lstat(destination, &now) == 0, now.st_ino == made.st_ino, now.st_size == 0 { _ = unlink(destination) }
                throw error
            }
        }
        // A kill here leaves the partial name on the backup too: `claimPartial` lets it go.
        _ = unlink(partial)
        syncFolder(of: destination)
    }

    /// Renames within one directory and syncs the directory, so the new name is durable.
    private static func rename(_ from: String, to: String) throws(StoreError) {
        guard Glibc.rename(from, to) == 0 else {
            throw StoreError(.io, "rename \(from) to \(to): \(String(cString: strerror(errno)))")
        }
        syncFolder(of: to)
    }

    /// Makes a name given in the folder of `path` durable.
    private static func syncFolder(of path: String) {
        let directory = open(URL(fileURLWithPath: path).deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { return }
        _ = fsync(directory)
        close(directory)
    }

    /// `<database>.before-restore-<UTC time>`, with `-2`, `-3`… when a restore in the same second
    /// kept one already: a kept database is never replaced (the restore holds the database's
    /// lock, so no other restore picks a name meanwhile).
    private static func keptName(for database: String, at now: Date) -> String {
        let base = database + ".before-restore-" + stamp(now)
        var name = base
        var suffix = 1
        while FileManager.default.fileExists(atPath: name) || FileManager.default.fileExists(atPath: name + "-wal") {
            suffix += 1
            name = base + "-\(suffix)"
        }
        return name
    }

    /// `20261203T154050Z`: ISO 8601's basic format, which sorts by time and is safe in a file name.
    private static func stamp(_ date: Date) -> String {
        ISO8601UTC.string(fromMilliseconds: UnixTime.milliseconds(date)).filter { $0 != "-" && $0 != ":" }
    }
}
