import Foundation
import Glibc

/// A file held under an exclusive `flock` from `init` until the object goes away, so that
/// `revenuedot simulate` processes running at once take turns with it: a counter read and
/// written back, a journal appended to, a customer's story played.
///
/// The kernel releases the lock when the descriptor closes (in `deinit`) or the process ends,
/// however it ends. The file is changed in place, never replaced, so every process locks the same
/// file. It is created with mode 0600 when missing; a symbolic link at `path` is refused.
final class LockedFile {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let path: String
    private let descriptor: Int32

    /// Opens (or creates) `path` and waits until this process holds it alone.
    init(path: String) throws(Failure) {
        self.path = path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw Failure(description: "cannot open \(path): \(Self.reason())") }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let failure = Failure(description: "cannot lock \(path): \(Self.reason())")
                close(descriptor)
                throw failure
            }
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// The whole file.
    func contents() throws(Failure) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = pread(descriptor, &buffer, buffer.count, off_t(data.count))
            if count < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "cannot read \(path): \(Self.reason())")
            }
            if count == 0 { return data }
            data.append(contentsOf: buffer[..<count])
        }
    }

    /// Makes `data` the whole file.
    func replaceContents(with data: Data) throws(Failure) {
        try truncate(to: 0)
        try write(data, at: 0)
    }

    /// Writes `data` after the file's last byte; a write stopped partway (a full disk) is cut
    /// off again, so the file ends where it ended before.
    func append(_ data: Data) throws(Failure) {
        let end = lseek(descriptor, 0, SEEK_END)
        guard end >= 0 else { throw Failure(description: "cannot seek in \(path): \(Self.reason())") }
        do throws(Failure) {
            try write(data, at: end)
        } catch {
            _ = ftruncate(descriptor, end)
            throw error
        }
    }

    /// Cuts the file to its first `length` bytes.
    func truncate(to length: off_t) throws(Failure) {
        guard ftruncate(descriptor, length) == 0 else { throw Failure(description: "cannot truncate \(path): \(Self.reason())") }
    }

    private func write(_ data: Data, at start: off_t) throws(Failure) {
        let failed = data.withUnsafeBytes { bytes -> Bool in
            var offset = 0
            while offset < bytes.count {
                let written = pwrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset, start + off_t(offset))
                if written < 0 {
                    if errno == EINTR { continue }
                    return true
                }
                offset += written
            }
            return false
        }
        if failed { throw Failure(description: "cannot write \(path): \(Self.reason())") }
    }

    private static func reason() -> String { String(cString: strerror(errno)) }
}
