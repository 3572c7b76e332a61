import Dispatch
import Foundation
import Synchronization
import Threads

/// Copies the WAL back into the database file on its own thread and connection, so the writer
/// only appends to the WAL (and the flusher only syncs it) on the way to every waiting answer.
///
/// The writer connection runs with `wal_autocheckpoint = 0` and reports each commit here. Once the
/// WAL holds `passiveFrames` frames, a PASSIVE checkpoint (which never waits for the writer) runs
/// whenever `passiveStepFrames` frames were committed since the last one copied what it could.
/// Under sustained load the writer keeps appending, so the WAL may never become free to restart
/// from the top; past `restartFrames` a RESTART checkpoint waits for the write lock (up to the busy
/// timeout), copies the rest, and makes the next commit start the WAL over. A PASSIVE one runs just
/// before it, so the writer is held only for the frames committed in between.
final class Checkpointer: Sendable {
    /// Frames (pages) in the WAL before a passive checkpoint runs (SQLite's own default is 1000).
    ///
    /// A page rewritten by many commits (an index leaf, the last page of a table) is copied once
    /// per checkpoint, so a longer window copies less. A much longer one lets the WAL reach
    /// `restartFrames` more often, and a RESTART holds the writer while readers finish, which
    /// shows as spikes in webhook latency.
    static let passiveFrames = 4000
    /// Frames in the WAL after which the checkpoint may briefly hold up the writer to restart the WAL.
    static let restartFrames = 16_384
    /// Frames committed since the last checkpoint before the next one runs.
    ///
    /// Each checkpoint copies every page committed since the one before, once, and syncs the WAL
    /// and the database file. Running one per commit would copy the pages every commit rewrites
    /// (the last page of a table, the leaf an index appends to) once per commit, and add two
    /// syncs and a wake-up of this thread to every commit. A step spans many commits, so such a
    /// page is copied once per step, and the RESTART that follows a PASSIVE one holds the writer
    /// for at most about as many frames as one commit adds.
    static let passiveStepFrames = 512

    /// What the checkpointer knows of the WAL: frames after the newest commit, and how many of
    /// them the last checkpoint copied (0 once the WAL started over).
    struct Progress: Equatable {
        var frames = 0
        var copied = 0

        /// Whether a checkpoint should run now.
        var isDue: Bool {
            frames >= Checkpointer.passiveFrames
                && (frames - copied >= Checkpointer.passiveStepFrames || frames >= Checkpointer.restartFrames)
        }

        /// A commit left `frames` in the WAL; fewer than before means the WAL started over, so
        /// none of them is copied yet.
        mutating func committed(walFrames: Int) {
            if walFrames < frames { copied = 0 }
            frames = walFrames
        }

        /// A checkpoint found `log` frames in the WAL and copied `copied` of them. The writer may
        /// have committed meanwhile, or started the WAL over: the count is kept only when it is
        /// about the WAL the writer last reported.
        mutating func checkpointed(log: Int, copied checkpointCopied: Int) {
            guard log <= frames else { return }
            copied = max(copied, checkpointCopied)
        }
    }

    private let wake = DispatchSemaphore(value: 0)
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchGroup()
    private let progress = Mutex(Progress())

    init() {}

    /// Starts the thread with its own connection to `path` (the file must exist and be in WAL mode).
    func start(path: String) throws(StoreError) {
        let connection = try SQLiteConnection(path: path, role: .checkpointer)
        let box = ConnectionBox(connection)
        finished.enter()
        NamedThread.start("checkpointer") { [self] in
            run(box.take())
            finished.leave()
        }
    }

    /// Called by the writer after a commit with the WAL's size in frames.
    func committed(walFrames frames: Int) {
        let due = progress.withLock { progress in
            progress.committed(walFrames: frames)
            return progress.isDue
        }
        if due { wake.signal() }
    }

    /// Stops the thread after the checkpoint in progress, if any. Idempotent; harmless before `start`.
    func stop() {
        if !stopping.exchange(true, ordering: .acquiringAndReleasing) { wake.signal() }
        finished.wait()
    }

    private func run(_ connection: SQLiteConnection) {
        // `stop` sets `stopping` before it signals, so even when the drain below swallows that
        // signal, the check at the top of the next round sees it.
        while !stopping.load(ordering: .acquiring) {
            wake.wait()
            if stopping.load(ordering: .acquiring) { return }
            // Nudges that queued up while a checkpoint ran are answered by the next one.
            while wake.wait(timeout: .now()) == .success {}
            let frames = progress.withLock { $0.isDue ? $0.frames : nil }
            guard let frames else { continue }
            // Best effort: a checkpoint that fails or is cut short leaves the WAL as it was, and the
            // next nudge (or the writer's TRUNCATE at close) tries again. Frames are never lost.
            checkpoint("PASSIVE", connection)
            if frames >= Self.restartFrames { checkpoint("RESTART", connection) }
        }
    }
}

extension Checkpointer {
    /// Runs one checkpoint and records how far it got: `wal_checkpoint` answers with the WAL's
    /// size in frames and how many of them are now in the database file.
    fileprivate func checkpoint(_ mode: String, _ connection: SQLiteConnection) {
        guard let row = try? connection.query("PRAGMA wal_checkpoint(\(mode))").first, row.count == 3,
            case .integer(let log) = row[1], case .integer(let copied) = row[2]
        else { return }
        progress.withLock { $0.checkpointed(log: Int(log), copied: Int(copied)) }
    }
}

/// Hands a non-`Sendable` connection to the one thread that will own it.
private final class ConnectionBox: @unchecked Sendable {
    private var connection: SQLiteConnection?
    init(_ connection: SQLiteConnection) { self.connection = connection }
    func take() -> SQLiteConnection {
        defer { connection = nil }
        return connection!
    }
}
