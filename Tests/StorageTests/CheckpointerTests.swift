import Foundation
import Testing

@testable import Storage

@Suite struct CheckpointerTests {
    /// The writer never checkpoints while it serves (its WAL hook replaces SQLite's automatic
    /// checkpoints), so the database file grows while the store is open only if the checkpointer
    /// thread copies the WAL into it; and the WAL is reused from the top instead of growing forever.
    @Test func walIsCopiedIntoTheDatabaseWhileTheStoreIsOpen() throws {
        let directory = try TemporaryDirectory()
        let store = try Store(path: directory.databasePath)
        defer { store.close() }
        // Random symbols, which zstd cannot shrink much: each row takes about 3 WAL frames, and
        // these are enough rows for twice the checkpointer's threshold.
        let symbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let rows = Checkpointer.passiveFrames * 2 / 3
        concurrently(rows, threads: 16) { index in
            var generator = SystemRandomNumberGenerator()
            let filler = String((0..<16_000).map { _ in symbols.randomElement(using: &generator)! })
            var record = makeRecord("uuid-\(index)")
            record.signedPayload = "eyJhbGciOiJFUzI1NiJ9.\(filler).c2ln\(index)"
            _ = try? store.store(record)
        }
        // The rows pass the checkpointer's threshold at least once. Frames committed after the last checkpoint may stay in the WAL (as with SQLite's
        // own automatic checkpoints), so expect a good part of the data, not all of it. Without a
        // checkpoint the file would keep its size after the migrations: a few pages.
        let databaseBytes = { () -> Int in
            (try? FileManager.default.attributesOfItem(atPath: directory.databasePath)[.size] as? Int) ?? 0
        }
        let deadline = Date().addingTimeInterval(10)
        while databaseBytes() < rows * 12_000 / 4, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(databaseBytes() >= rows * 12_000 / 4)
        #expect(try rawQuery(directory.databasePath, "SELECT count(*) FROM notifications") == [[.integer(Int64(rows))]])
    }

    /// A checkpoint runs once the WAL is long enough, then only after another step of frames, not
    /// after every commit; past the restart size, after every commit until the WAL starts over.
    @Test func checkpointsRunInStepsOfFrames() {
        var progress = Checkpointer.Progress()
        progress.committed(walFrames: Checkpointer.passiveFrames - 1)
        #expect(!progress.isDue)
        progress.committed(walFrames: Checkpointer.passiveFrames)
        #expect(progress.isDue)
        progress.checkpointed(log: Checkpointer.passiveFrames, copied: Checkpointer.passiveFrames)
        #expect(!progress.isDue)
        progress.committed(walFrames: Checkpointer.passiveFrames + Checkpointer.passiveStepFrames - 1)
        #expect(!progress.isDue)
        progress.committed(walFrames: Checkpointer.passiveFrames + Checkpointer.passiveStepFrames)
        #expect(progress.isDue)
        // Past the restart size every commit is due, copied or not.
        progress.committed(walFrames: Checkpointer.restartFrames)
        progress.checkpointed(log: Checkpointer.restartFrames, copied: Checkpointer.restartFrames)
        #expect(progress.isDue)
    }

    /// Once the WAL starts over, its frames are new: the copy count of the old WAL is dropped, and
    /// a late checkpoint result about the old WAL does not count for the new one.
    @Test func aWALThatStartsOverCountsFromZero() {
        var progress = Checkpointer.Progress()
        progress.committed(walFrames: Checkpointer.restartFrames)
        progress.checkpointed(log: Checkpointer.restartFrames, copied: Checkpointer.restartFrames)
        progress.committed(walFrames: 30)
        #expect(progress == Checkpointer.Progress(frames: 30, copied: 0))
        progress.checkpointed(log: Checkpointer.restartFrames, copied: Checkpointer.restartFrames)
        #expect(progress.copied == 0)
        progress.committed(walFrames: Checkpointer.passiveFrames)
        #expect(progress.isDue)
        // A checkpoint held back by a reader copies part: the next is due after the step from there.
        progress.checkpointed(log: Checkpointer.passiveFrames, copied: 100)
        #expect(progress.isDue)
    }
}
