import Dispatch
import Foundation
import Synchronization

/// Copies the WAL back into the database file on its own thread and connection, so the writer
/// only appends to the WAL (and the flusher only syncs it) on the way to every waiting answer.
///
/// The writer connection runs with `wal_autocheckpoint = 0` and nudges this thread after each
/// commit. A nudge runs a PASSIVE checkpoint once the WAL holds `passiveFrames` frames: it never
/// waits for the writer. Under sustained load the writer keeps appending, so the WAL may never
/// become free to restart from the top; past `restartFrames` a RESTART checkpoint waits for the
/// write lock (up to the busy timeout), copies the rest, and makes the next commit start the WAL over.
final class Checkpointer: Sendable {
    /// Frames (pages) in the WAL before a passive checkpoint runs (SQLite's own default is 1000).
    ///
    /// A page rewritten by many commits (an index leaf, the last page of a table) is copied once
    /// per checkpoint, so a longer window copies less: under the ingest benchmark the checkpointer
    /// copied 34.5 KiB per notification at 1000 frames and 28.6 at 4000 (15–19 with compact
    /// payloads). 8000 copied 12, but let the WAL reach `restartFrames` more often, and a RESTART
    /// holds the writer while readers finish: webhook latency showed spikes of 100–300 ms.
    static let passiveFrames = 4000
    /// Frames in the WAL after which the checkpoint may briefly hold up the writer to restart the WAL.
    static let restartFrames = 16_384

    private let wake = DispatchSemaphore(value: 0)
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchGroup()
    /// WAL frames after the newest commit, as the writer last reported them.
    private let walFrames = Atomic<Int>(0)

    init() {}

    /// Starts the thread with its own connection to `path` (the file must exist and be in WAL mode).
    func start(path: String) throws(StoreError) {
        let connection = try SQLiteConnection(path: path, role: .checkpointer)
        let box = ConnectionBox(connection)
        finished.enter()
        let thread = Thread { [self] in
            Thread.current.name = "checkpointer"
            run(box.take())
            finished.leave()
        }
        thread.start()
    }

    /// Called by the writer after a commit with the WAL's size in frames.
    func committed(walFrames frames: Int) {
        walFrames.store(frames, ordering: .relaxed)
        if frames >= Self.passiveFrames { wake.signal() }
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
            guard walFrames.load(ordering: .relaxed) >= Self.passiveFrames else { continue }
            let mode = walFrames.load(ordering: .relaxed) >= Self.restartFrames ? "RESTART" : "PASSIVE"
            // Best effort: a checkpoint that fails or is cut short leaves the WAL as it was, and the
            // next nudge (or the writer's TRUNCATE at close) tries again. Frames are never lost.
            _ = try? connection.query("PRAGMA wal_checkpoint(\(mode))")
        }
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
