import Foundation

/// The files a SQLite database in WAL mode is written through: the database, its WAL and
/// shared-memory files beside it, and RevenueDot's lock file.
enum SQLiteFiles {
    /// Why this process could not write the database at `path`, or nil when it can: each of its
    /// files that exists must be readable and writable, and its folder must let the database (if
    /// there is none yet) and its WAL and shared-memory files be made. SQLite itself would open a file it may not write read-only,
    /// without a word, and fail only at the first commit.
    static func unwritable(_ path: String) -> String? {
        for file in [DatabaseLock.lockPath(path), path, path + "-wal", path + "-shm"]
        where FileManager.default.fileExists(atPath: file) {
            guard access(file, R_OK | W_OK) == 0 else {
                return "\(file) cannot be written by this user (\(String(cString: strerror(errno)))): check its owner and mode"
            }
        }
        let folder = URL(fileURLWithPath: path).resolvingSymlinksInPath().deletingLastPathComponent().path
        if let missing = missingFolder(folder) { return missing }
        guard access(folder, W_OK | X_OK) == 0 else {
            return "\(folder), the database's folder, does not let this user make the database or its WAL files "
                + "there (\(String(cString: strerror(errno))))"
        }
        return nil
    }

    /// What to say of `folder` when it does not exist (or is no folder), nil when it is one.
    static func missingFolder(_ folder: String) -> String? {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) else {
            return "the folder \(folder) does not exist: make it (owned by the user RevenueDot runs as), or give another path"
        }
        return isFolder.boolValue ? nil : "\(folder), where the database would be, is not a folder"
    }

    /// Why a reader could not open the database at `path` (SQLite's "unable to open database
    /// file" at its first statement): a WAL database is read through its shared-memory file,
    /// which must exist or be made beside it. Nil when that is not why.
    static func unreadable(_ path: String) -> String? {
        let shm = path + "-shm"
        if FileManager.default.fileExists(atPath: shm) {
            guard access(shm, R_OK | W_OK) == 0 else {
                return "\(shm) cannot be written by this user (\(String(cString: strerror(errno)))), and SQLite reads "
                    + "the database through it: check its owner and mode"
            }
            return nil
        }
        let folder = URL(fileURLWithPath: path).resolvingSymlinksInPath().deletingLastPathComponent().path
        guard access(folder, W_OK | X_OK) == 0 else {
            return "\(folder), the database's folder, does not let this user make \(shm) (\(String(cString: strerror(errno)))), "
                + "which SQLite needs to read the database: run this as a user who may write the folder, or on a copy "
                + "of the database (with its -wal file) in a folder this user may write"
        }
        return nil
    }
}
