import Dispatch
import Foundation
import Synchronization
import Threads

/// Makes the writer's commits durable on a thread of its own, so the writer starts its next batch
/// while the disk takes the last one.
///
/// The writer connection commits with `synchronous=NORMAL`: a commit writes its frames to the WAL
/// but does not wait for the disk. The writer then hands the batch's answers here, and this thread
/// releases them only after an `fdatasync` of the WAL that began after that hand-over. So nothing is
/// answered before the frames that hold it are on disk, which is what `synchronous=FULL` promises,
/// and one flush under load covers every batch committed while the previous flush ran.
///
/// Checkpoints stay safe: in WAL mode SQLite syncs the WAL before it copies frames into the database,
/// syncs the database after, and syncs the WAL header when the WAL starts over (`synchronous`
/// documentation), at `NORMAL` as at `FULL`.
///
/// The first failed flush is final. The kernel may have dropped the pages it failed to write, so a
/// later flush could succeed without them. Every answer after it is that error (503: Apple retries),
/// and the health check fails until a restart lets SQLite recover the WAL.
///
/// A flush also fails when the database or the WAL is no longer the file its path names (deleted,
/// or replaced by another file): SQLite goes on writing through the descriptors it opened, to a
/// file that nothing will read again, so an answer released then would be a notification lost.
final class WALFlusher: Sendable {
    /// An answer waiting for the flush: called with nil once its commit is on disk, or with the error.
    typealias Release = @Sendable (StoreError?) -> Void
    /// Puts a file descriptor's data on disk; 0 or the `errno` of the failure.
    typealias Flush = @Sendable (Int32) -> Int32
    /// Told how long each flush took (failed ones too), before the answers it releases go out.
    typealias Observe = @Sendable (Duration) -> Void

    private struct State {
        var waiting: [Release] = []
        var stopping = false
        var failure: StoreError?
    }

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchGroup()
    private let walPath: String
    /// A descriptor of the WAL file of its own: `fdatasync` flushes the file, whichever descriptor asks.
    private let descriptor: Int32
    /// The database file, and which file it was when the flusher started.
    private let databasePath: String
    private let database: FileIdentity?
    /// The directory holding both: each check looks their two names up in it, instead of walking
    /// both paths from the root at every flush. -1 when it could not be opened.
    private let directory: Int32
    private let names: (database: String, wal: String)
    /// The WAL file this flusher opened.
    private let wal: FileIdentity?
    private let flushFile: Flush
    private let observe: Observe?

    /// Opens the WAL at `walPath`, as the writer connection names it (`SQLiteConnection.walPath`:
    /// beside the real database file, not beside a symbolic link to it), and starts the thread.
    /// The writer must have opened the database in WAL mode, which creates the file.
    ///
    /// SQLite removes a WAL file only when the last connection to the database closes, and the
    /// writer's connection outlives this object, so the file stays the one opened here, unless
    /// something outside removes or replaces it (each flush checks, with the database file at
    /// `databasePath`, which the writer has just opened).
    init(
        walPath: String, databasePath: String, flush: @escaping Flush = WALFlusher.fdatasync, observe: Observe? = nil
    ) throws(StoreError) {
        self.walPath = walPath
        self.databasePath = databasePath
        database = FileIdentity(path: databasePath)
        let folder = URL(fileURLWithPath: databasePath).deletingLastPathComponent()
        let sameFolder = URL(fileURLWithPath: walPath).deletingLastPathComponent().path == folder.path
        directory = sameFolder ? open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1
        names = (URL(fileURLWithPath: databasePath).lastPathComponent, URL(fileURLWithPath: walPath).lastPathComponent)
        flushFile = flush
        self.observe = observe
        descriptor = open(walPath, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            if directory >= 0 { close(directory) }
            throw StoreError(.unavailable, "open \(walPath) to flush it: \(reason)")
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            if directory >= 0 { close(directory) }
            throw StoreError(.unavailable, "\(walPath) is not a regular file: it cannot be the WAL")
        }
        wal = FileIdentity(descriptor: descriptor)
        finished.enter()
        NamedThread.start("wal-flusher") { [self] in
            run()
            finished.leave()
        }
    }

    /// Calls `release` after the next flush that starts after this call.
    func afterFlush(_ release: @escaping Release) {
        state.withLock { $0.waiting.append(release) }
        wake.signal()
    }

    /// The flush failure that stopped durable answers, if one happened.
    var failure: StoreError? { state.withLock { $0.failure } }

    var problem: StoreError? { failure ?? filesMoved() }

    /// Flushes and releases everything handed over so far, then ends the thread and closes the
    /// descriptor. Called once, by the writer, after its last commit.
    func stop() {
        state.withLock { $0.stopping = true }
        wake.signal()
        finished.wait()
        close(descriptor)
        if directory >= 0 { close(directory) }
    }

    private func run() {
        while true {
            wake.wait()
            let (waiting, stopping) = state.withLock { state in
                defer { state.waiting.removeAll(keepingCapacity: true) }
                return (state.waiting, state.stopping)
            }
            if !waiting.isEmpty {
                let error = flush()
                for release in waiting { release(error) }
            }
            // `stop` comes after the writer's last hand-over, so `waiting` held everything.
            if stopping { return }
        }
    }

    /// One flush of the WAL; the first failure is kept and returned from then on.
    private func flush() -> StoreError? {
        if let failure = state.withLock({ $0.failure }) { return failure }
        let started = ContinuousClock.now
        let code = flushFile(descriptor)
        observe?(.now - started)
        let error: StoreError
        if code != 0 {
            error = StoreError(.io, "fdatasync \(walPath): \(String(cString: strerror(code)))")
        } else if let moved = filesMoved() {
            error = moved
        } else {
            return nil
        }
        state.withLock { $0.failure = error }
        return error
    }

    /// Why the commits just flushed would be lost, if the database or the WAL is no longer the
    /// file its path names.
    private func filesMoved() -> StoreError? {
        for (path, name, opened) in [(databasePath, names.database, database), (walPath, names.wal, wal)] {
            // A file that could not be looked up at the start is not compared (none so far).
            guard let opened else { continue }
            let current: FileIdentity?
            if directory >= 0 {
                switch FileIdentity.lookUp(name, in: directory) {
                case .success(let found): current = found
                case .failure(let failure) where failure.isGone: current = nil
                // A lookup refused (a permission taken away) says nothing of which file the name is.
                case .failure: continue
                }
            } else {
                current = FileIdentity(path: path)
            }
            guard current != opened else { continue }
            let now = current == nil ? "is gone" : "is another file now"
            return StoreError(
                .io,
                "\(path) \(now) (deleted or replaced while RevenueDot had it open): nothing more can be stored; restart RevenueDot to use the file there"
            )
        }
        return nil
    }

    /// `fdatasync(2)`, again when a signal interrupted it.
    static let fdatasync: Flush = { descriptor in
        while Glibc.fdatasync(descriptor) != 0 {
            guard errno == EINTR else { return errno }
        }
        return 0
    }
}
