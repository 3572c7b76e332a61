import Foundation

/// Writing to standard output and standard error without buffering surprises.
package enum StandardStreams {
    /// A command's output: if it cannot be written (a full disk, a closed descriptor), the command
    /// says so on standard error and exits 1 rather than carrying on as if it had printed it. (A
    /// reader that went away ends it by SIGPIPE first, as for any Unix command.)
    package static func out(_ text: String) {
        do {
            try FileHandle.standardOutput.write(contentsOf: Data(text.utf8))
        } catch {
            Self.error("revenuedot: cannot write to standard output: \(error.localizedDescription)\n")
            exit(1)
        }
    }

    /// What a running server says: lost, not fatal, when nobody can read it any more.
    package static func note(_ text: String) {
        write(text, to: 1)
    }

    package static func error(_ text: String) {
        write(text, to: 2)
    }

    /// Writes all of `text` to `descriptor` (with as few `write(2)` calls as it takes: one for a
    /// line, so lines from several threads never interleave); what cannot be written is dropped.
    private static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }

    /// Opens /dev/null on any of descriptors 0, 1 and 2 that is closed (a process started with
    /// `>&- 2>&-`, some supervisors). Otherwise the next file or pipe opened takes the free
    /// number: the server's signal pipe would become its standard error, and any warning it wrote
    /// would stop it as if a SIGTERM had come. Called before anything else opens a descriptor.
    package static func openClosedStandardDescriptors() {
        for descriptor: Int32 in 0...2 where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            // open takes the lowest free number, which is `descriptor` since the ones before it are open.
            let opened = open("/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY)
            if opened >= 0, opened != descriptor { close(opened) }
        }
    }
}
