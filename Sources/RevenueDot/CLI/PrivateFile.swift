import Foundation
import Glibc

/// Writes files that hold secrets (a configuration's API keys, the dev CA's private keys) so that
/// they are never readable by others, not even for a moment: the file is opened with mode 0600,
/// or made 0600 before anything is written when it was there already. Writing the text first and
/// changing the mode afterwards left it readable with the umask's mode (usually 0644) between the two.
enum PrivateFile {
    struct WriteError: Error, CustomStringConvertible {
        let description: String
    }

    /// Writes `contents` to `path`, readable and writable by its owner only. `exclusive`: fails
    /// when something is at `path` already, instead of replacing its contents. A symbolic link
    /// at `path` is refused either way.
    static func write(_ contents: Data, to path: String, exclusive: Bool) throws(WriteError) {
        let flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | (exclusive ? O_EXCL : 0)
        let descriptor = open(path, flags, 0o600)
        guard descriptor >= 0 else { throw WriteError(description: "cannot create \(path): \(Self.reason())") }
        defer { close(descriptor) }
        // An existing file keeps its mode through open: narrow it before the secret goes in.
        guard fchmod(descriptor, 0o600) == 0 else {
            throw WriteError(description: "cannot make \(path) private (mode 0600): \(Self.reason())")
        }
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
        if failed { throw WriteError(description: "cannot write \(path): \(Self.reason())") }
    }

    private static func reason() -> String { String(cString: strerror(errno)) }
}
