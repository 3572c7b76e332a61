import Foundation

/// Gives the WAL file, once at start, the size it reaches under sustained writing, filled with zeros.
///
/// Under load the writer appends while a passive checkpoint copies, so the WAL only starts over
/// at a RESTART checkpoint (`Checkpointer.restartFrames`): until then it grows, frame by frame.
/// A WAL frame is a 24-byte header and a page, so every frame written past the end of the file
/// starts on a block the file does not have yet: ext4 allocates it and zeroes the part of the
/// page the write leaves out, and every `fdatasync` of a file that grew also commits the journal.
/// Once the WAL has reached its full size it is overwritten in place and pays neither, but SQLite
/// deletes it when the last connection closes, so every start of the server would begin again
/// with an empty one. Writing the reserve and its `fdatasync` once at start costs far less than
/// growing the file under load.
///
/// Zeros are no frames: SQLite reads a WAL from its header, frame by frame, and stops at the
/// first frame whose salt and checksum do not match, so a header or frame of zeros ends the log
/// (an all-zero header is an empty WAL). SQLite never truncates the WAL on its own (no
/// `journal_size_limit`); the exclusive store's `wal_checkpoint(TRUNCATE)` at close gives the
/// space back (a command reading beside the server never truncates it).
enum WALReserve {
    /// Fills `walPath` with zeros up to `bytes`, holding the write lock so that no connection, of
    /// this process or another, writes a frame meanwhile; every frame lies below the file's size
    /// when the lock is taken. Best effort: when the zeros cannot be written (a full disk), the file
    /// is cut back to its size and the WAL grows as before; the error is returned, and the store
    /// lists it in `Store.warnings` (which `revenuedot serve` prints).
    @discardableResult
    static func fill(walPath: String, to bytes: Int, holding connection: SQLiteConnection) -> StoreError? {
        do throws(StoreError) {
            try connection.run("BEGIN IMMEDIATE")
        } catch {
            return error
        }
        defer { _ = try? connection.run("ROLLBACK") }
        let descriptor = open(walPath, O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return failure("open", walPath) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return failure("fstat", walPath) }
        let start = Int(status.st_size)
        guard start < bytes else { return nil }
        if let error = writeZeros(descriptor, from: start, to: bytes, walPath) {
            // Nothing but zeros lies past `start`, and nobody else writes while the lock is held.
            _ = ftruncate(descriptor, off_t(start))
            return error
        }
        // Now, so that the first commit's flush does not also commit the file's new size.
        let code = WALFlusher.fdatasync(descriptor)
        return code == 0 ? nil : failure("fdatasync", walPath, code: code)
    }

    /// The WAL's size when a RESTART checkpoint starts it over: `frames` frames of `pageSize`
    /// bytes and their headers, after the file header, rounded up to whole MiB.
    static func bytes(frames: Int, pageSize: Int) -> Int {
        let exact = 32 + frames * (24 + pageSize)
        let mebibyte = 1 << 20
        return (exact + mebibyte - 1) / mebibyte * mebibyte
    }

    private static func writeZeros(_ descriptor: Int32, from start: Int, to end: Int, _ walPath: String) -> StoreError? {
        let chunk = [UInt8](repeating: 0, count: 1 << 20)
        var offset = start
        while offset < end {
            let length = min(chunk.count, end - offset)
            let written = chunk.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, length, off_t(offset)) }
            if written < 0 {
                if errno == EINTR { continue }
                return failure("pwrite", walPath)
            }
            offset += written
        }
        return nil
    }

    private static func failure(_ call: String, _ walPath: String, code: Int32 = errno) -> StoreError {
        StoreError(.io, "\(call) \(walPath) to reserve its space: \(String(cString: strerror(code)))")
    }
}
