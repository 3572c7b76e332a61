import Foundation
import Glibc

/// Reads a child's pipe on a thread of its own until end of file, appending what arrives to
/// `into`: the child never blocks on a full pipe, and the test can read what it printed.
///
/// A thread with blocking reads, not `FileHandle.readabilityHandler`: that handler is a
/// dispatch read source, and when the handle closes its descriptor before the source's
/// cancellation has been processed (the owner released first, a child killed), the number
/// can be reused by the next pipe and libdispatch's epoll loop touches a freed source, which
/// crashed the whole test process in CI. The thread holds the handle until end of file, so
/// the descriptor is closed only after the last read.
enum PipeDrain {
    static func start(_ handle: FileHandle, into output: CollectedOutput) {
        let thread = Thread { [handle, output] in
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(handle.fileDescriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                let text = String(decoding: buffer[..<count], as: UTF8.self)
                output.text.withLock { $0 += text }
            }
            withExtendedLifetime(handle) {}
        }
        thread.name = "pipe-drain"
        thread.start()
    }
}
