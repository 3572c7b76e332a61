import Glibc

/// Which file a path names: its device and inode. A file deleted or replaced under its path (a
/// `rm`, a `mv` over it, a restore from a backup) leaves the name to another file, or to none,
/// while the descriptors SQLite opened still reach the old one.
struct FileIdentity: Equatable {
    let device: UInt64
    let inode: UInt64

    /// The file `path` names now (symbolic links followed); nil when there is none.
    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        self.init(status)
    }

    /// The file `name` names now in the directory open as `directory` (one lookup, not a walk of
    /// the whole path), or the lookup's errno
    /// (`ENOENT`: no file has the name; `EACCES`: the lookup was refused, which says nothing).
    static func lookUp(_ name: String, in directory: Int32) -> Result<FileIdentity, LookupError> {
        var status = stat()
        guard fstatat(directory, name, &status, 0) == 0 else { return .failure(LookupError(code: errno)) }
        return .success(FileIdentity(status))
    }

    struct LookupError: Error {
        let code: Int32
        /// No file has the name (the one there was deleted, or a folder on the way).
        var isGone: Bool { code == ENOENT || code == ENOTDIR }
    }

    /// The file open as `descriptor`; nil when it cannot be read.
    init?(descriptor: Int32) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        self.init(status)
    }

    private init(_ status: stat) {
        device = UInt64(status.st_dev)
        inode = UInt64(status.st_ino)
    }
}
