import Foundation
import Glibc
import Server

/// Writes files that hold secrets (a configuration's API keys, the dev CA's private keys) so that
/// they are never readable by others, not even for a moment, and never left half written.
///
/// The contents go to a new file beside the target, created with mode 0600 (`O_EXCL`, so nothing
/// planted there is reused), synced, and only then put in place under the target's name: renamed
/// over it, or linked when nothing may be there yet. Writing the text with the umask's mode
/// (usually 0644) and narrowing it afterwards would leave it readable in between; writing in
/// place would leave a truncated file behind when the write fails (a full disk), which the next
/// run would take as made.
enum PrivateFile {
    struct WriteError: Error, CustomStringConvertible {
        let description: String
    }

    /// Writes `contents` to `path`, readable and writable by its owner only. `exclusive`: fails
    /// when something is at `path` already (a symbolic link too, even a dangling one) instead of
    /// replacing it. Otherwise what is at `path` is replaced whole; a symbolic link there is
    /// replaced, not followed. On failure `path` is as it was and no temporary file remains.
    static func write(_ contents: Data, to path: String, exclusive: Bool) throws(WriteError) {
        let temporary = try createTemporary(beside: path)
        do throws(WriteError) {
            try fill(temporary.descriptor, with: contents, path: temporary.path)
            if exclusive {
                // link(2) fails when the name exists, whatever it is: nothing is replaced.
                guard link(temporary.path, path) == 0 else {
                    throw WriteError(description: "cannot create \(path): \(Self.reason())")
                }
                unlink(temporary.path)
            } else {
                guard rename(temporary.path, path) == 0 else {
                    throw WriteError(description: "cannot replace \(path): \(Self.reason())")
                }
            }
        } catch {
            unlink(temporary.path)
            throw error
        }
    }

    /// Creates the directory at `path` and any missing parent, each new one with mode 0700
    /// whatever the umask (0000 would make them 0777). Directories already there are left as
    /// they are; something else in the way is an error.
    static func createDirectory(_ path: String) throws(WriteError) {
        var status = stat()
        if stat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFDIR else { throw WriteError(description: "\(path) is not a directory") }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path { try createDirectory(parent) }
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
            throw WriteError(description: "cannot create the directory \(path): \(Self.reason())")
        }
        // The umask may have taken the owner's bits too: the owner must be able to use it.
        guard chmod(path, 0o700) == 0 else {
            throw WriteError(description: "cannot make \(path) private (mode 0700): \(Self.reason())")
        }
    }

    /// A new file with mode 0600 in the directory of `path`, under a name nothing else uses.
    private static func createTemporary(beside path: String) throws(WriteError) -> (path: String, descriptor: Int32) {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let name = ".\(url.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let temporary = (directory as NSString).appendingPathComponent(name)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw WriteError(description: "cannot create a file in \(directory): \(Self.reason())") }
        return (temporary, descriptor)
    }

    /// Writes all of `contents`, syncs, and closes `descriptor` (also when it fails).
    private static func fill(_ descriptor: Int32, with contents: Data, path: String) throws(WriteError) {
        var failure: String?
        // The umask may have taken bits from 0600 as well: the owner must read and write it.
        if fchmod(descriptor, 0o600) != 0 { failure = "cannot make \(path) private (mode 0600): \(Self.reason())" }
        if failure == nil {
            let failed = contents.withUnsafeBytes { bytes -> Bool in
                var offset = 0
                while offset < bytes.count {
                    let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return true
                    }
                    offset += written
                }
                return false
            }
            if failed { failure = "cannot write \(path): \(Self.reason())" }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = "cannot sync \(path): \(Self.reason())" }
        if close(descriptor) != 0, failure == nil { failure = "cannot close \(path): \(Self.reason())" }
        if let failure { throw WriteError(description: failure) }
    }

    private static func reason() -> String { String(cString: strerror(errno)) }
}
