import Dispatch
import Foundation
import Glibc
import Synchronization
import Testing

@_spi(StoreSQL) @testable import Storage

/// Stands in for `fdatasync` of the WAL: flushes for real, but can hold each flush until released,
/// or fail them all with an `errno`.
final class FlushGate: Sendable {
    private let state = Mutex<(holding: Bool, started: Int, failure: Int32)>((true, 0, 0))
    private let released = DispatchSemaphore(value: 0)
    /// "flushed N" as each flush returns, in order; tests add their answers to the same log.
    let log = Collected<String>()
    /// The files flushed, from `/proc/self/fd`.
    let files = Collected<String>()

    init(holding: Bool = true, failure: Int32 = 0) {
        state.withLock { $0 = (holding, 0, failure) }
    }

    var flush: WALFlusher.Flush {
        { [self] descriptor in
            let (number, holding, failure) = state.withLock { state in
                state.started += 1
                return (state.started, state.holding, state.failure)
            }
            files.append((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")) ?? "?")
            if holding { released.wait() }
            defer { log.append("flushed \(number)") }
            return failure != 0 ? failure : WALFlusher.fdatasync(descriptor)
        }
    }

    /// Flushes begun so far (including one being held).
    var started: Int { state.withLock { $0.started } }

    /// Lets the held flush finish, and every later one run without waiting.
    func open() {
        state.withLock { $0.holding = false }
        released.signal()
    }
}

/// Records the notifications the writer has applied (inside its open transaction).
final class AppliedProbe: NotificationHandOff {
    let applied = Collected<String>()

    func handOff(_ record: NotificationRecord, in transaction: WriteTransaction) throws -> NotificationState {
        applied.append(record.notificationUUID)
        return record.state
    }
}

/// Waits up to 10 s for `condition`.
func waitFor(_ what: String, _ condition: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(10)
    while try !condition() {
        guard Date() < deadline else { throw TestFailure(description: "timed out waiting for \(what)") }
        Thread.sleep(forTimeInterval: 0.005)
    }
}

/// A store on a fresh file whose flushes go through `gate`, with every `store` answer collected.
/// Opens the gate and closes the store when it goes away, so a failing test cannot hang.
final class GatedStore {
    let directory: TemporaryDirectory
    let gate: FlushGate
    let store: Store
    let answers = Collected<Result<StoreOutcome, StoreError>>()
    /// The size of each commit, as `onCommit` reports it once the commit is on disk.
    let batches = Collected<Int>()
    /// How long each flush took, as `onFlush` reports it.
    let flushTimes = Collected<Duration>()

    init(
        gate: FlushGate = FlushGate(), handOff: any NotificationHandOff = KeepReceived(),
        directory: TemporaryDirectory? = nil
    ) throws {
        let (directory, batches, flushTimes) = (try directory ?? TemporaryDirectory(), batches, flushTimes)
        self.directory = directory
        self.gate = gate
        store = try Store(
            path: directory.databasePath, handOff: handOff, maxBatch: 512, readers: 2,
            onCommit: { batch in batches.append(batch.items) }, onFlush: { flushTimes.append($0) }, flush: gate.flush)
    }

    deinit {
        gate.open()
        store.close()
    }

    /// Stores notification `uuid` without waiting; its answer joins `answers`.
    func store(_ uuid: String) {
        let answers = answers
        store.store(makeRecord(uuid)) { answers.append($0) }
    }

    /// Stores `uuid` and waits until the flush of its commit has begun (and, held, goes no further).
    func storeFirst(_ uuid: String) throws {
        store(uuid)
        try waitFor("the flush of the first commit") { gate.started == 1 }
    }

    func count() throws -> [[SQLValue]] {
        try rawQuery(directory.databasePath, "SELECT count(*) FROM notifications")
    }
}

@Suite struct WALFlushTests {
    /// A commit is visible at once, but its answer waits until the WAL has been flushed.
    @Test func answerWaitsForTheFlushOfItsCommit() throws {
        let held = try GatedStore()
        try held.storeFirst("a")

        #expect(try held.count() == [[.integer(1)]])
        Thread.sleep(forTimeInterval: 0.2)
        #expect(held.answers.all.isEmpty, "no answer before the flush returns")

        held.gate.open()
        try waitFor("the answer") { held.answers.all.count == 1 }
        #expect(try held.answers.all.map { try $0.get() } == [.stored])
    }

    /// Each flush reports how long it took, before the answers it releases: a flush held for
    /// 300 ms reports at least that, and the answer that waited for it sees the report.
    @Test func flushReportsItsDurationBeforeItsAnswers() throws {
        let held = try GatedStore()
        let (flushTimes, answers) = (held.flushTimes, held.answers)
        let reportsSeen = Collected<Int>()
        held.store.store(makeRecord("a")) { result in
            reportsSeen.append(flushTimes.all.count)
            answers.append(result)
        }
        try waitFor("the flush of the first commit") { held.gate.started == 1 }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(held.flushTimes.all.isEmpty, "nothing is reported while the flush runs")

        held.gate.open()
        try waitFor("the answer") { held.answers.all.count == 1 }
        #expect(reportsSeen.all == [1])
        let first = try #require(held.flushTimes.all.first)
        #expect(first >= .milliseconds(300))
        #expect(first < .seconds(10))

        held.store("b")
        try waitFor("the second answer") { held.answers.all.count == 2 }
        #expect(held.flushTimes.all.count == 2, "one report per flush")
    }

    /// While a commit is being flushed, the writer applies newly arrived items in an open transaction
    /// and commits them together as soon as that flush is done.
    @Test func itemsArrivingDuringAFlushShareTheNextCommit() throws {
        let probe = AppliedProbe()
        let held = try GatedStore(handOff: probe)
        try held.storeFirst("first")
        for index in 0..<20 { held.store("n\(index)") }

        try waitFor("the writer to apply all 20") { probe.applied.all.count == 21 }
        #expect(try held.count() == [[.integer(1)]], "the 20 wait in the open transaction")
        #expect(held.gate.started == 1, "nothing else is flushed while the first flush runs")
        #expect(held.answers.all.isEmpty)

        held.gate.open()
        try waitFor("21 answers") { held.answers.all.count == 21 }
        #expect(try held.answers.all.map { try $0.get() } == Array(repeating: .stored, count: 21))
        #expect(held.batches.all == [1, 20])
        #expect(try held.count() == [[.integer(21)]])
    }

    /// A failed flush fails its answers, and every later one: the kernel may have dropped the pages
    /// it could not write, so a later flush that succeeds proves nothing. The health check fails too.
    @Test func failedFlushFailsEveryAnswerFromThenOn() throws {
        let held = try GatedStore(gate: FlushGate(holding: false, failure: EIO))
        let store = held.store

        for uuid in ["a", "b"] {
            let error = #expect(throws: StoreError.self) { try store.store(makeRecord(uuid)) }
            #expect(error?.code == .io)
            #expect(error?.message.contains("fdatasync") == true)
            #expect(error?.message.contains("Input/output error") == true)
        }
        let work = #expect(throws: StoreError.self) {
            try store.write { transaction in try transaction.execute("CREATE TABLE after_failure (id INTEGER)") }
        }
        #expect(work?.code == .io)
        #expect(held.gate.started == 1, "the first failure is final: no flush is tried again")
        #expect(held.batches.all.isEmpty, "no commit is reported as on disk")
        let path = held.directory.databasePath
        #expect(
            try rawQuery(path, "SELECT notification_uuid FROM notifications") == [[.text("a")]],
            "only the commit whose flush failed is in the file: nothing is committed after the failure")
        #expect(try rawQuery(path, "SELECT name FROM sqlite_master WHERE name = 'after_failure'").isEmpty)
        let health = #expect(throws: StoreError.self) { try store.healthCheck() }
        #expect(health?.code == .io)
    }

    /// A duplicate and caller work wait for the flush of their own commit too: a duplicate's
    /// answer vouches for the original, which may be in the commit still being flushed.
    @Test func duplicateAndWorkAnswersWaitForTheFlushOfTheirCommit() throws {
        let held = try GatedStore()
        let (gate, store) = (held.gate, held.store)
        store.store(makeRecord("a")) { result in gate.log.append("a \((try? result.get()).map { "\($0)" } ?? "failed")") }
        try waitFor("the flush of the first commit") { gate.started == 1 }
        store.store(makeRecord("a")) { result in gate.log.append("again \((try? result.get()).map { "\($0)" } ?? "failed")") }
        store.write({ transaction in try transaction.execute("CREATE TABLE work (id INTEGER)") }) { result in
            gate.log.append("work \((try? result.get()) == nil ? "failed" : "done")")
        }
        try waitFor("the writer to take the duplicate and the work") { store.queueDepth == 0 }
        Thread.sleep(forTimeInterval: 0.2)
        #expect(gate.log.all.isEmpty, "no answer while the first flush is held")

        gate.open()
        try waitFor("three answers") { gate.log.all.filter { !$0.hasPrefix("flushed") }.count == 3 }
        #expect(gate.log.all == ["flushed 1", "a stored", "flushed 2", "again duplicate", "work done"])
    }

    /// With the database path a symbolic link, SQLite keeps the WAL beside the real file, and
    /// that is the file flushed.
    @Test func flushesTheWALBesideTheRealFileOfALinkedDatabase() throws {
        let directory = try TemporaryDirectory()
        let real = directory.path + "/real"
        try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: real + "/db.sqlite", contents: nil)
        try FileManager.default.createSymbolicLink(atPath: directory.databasePath, withDestinationPath: real + "/db.sqlite")
        let held = try GatedStore(gate: FlushGate(holding: false), directory: directory)

        #expect(try held.store.store(makeRecord("a")) == .stored)
        #expect(held.gate.files.all == [real + "/db.sqlite-wal"])
        #expect(!FileManager.default.fileExists(atPath: directory.databasePath + "-wal"))
    }

    /// Closing while a flush is held answers nothing early: the last commits are answered once
    /// their flushes are done, and then the store is gone.
    @Test func closeAnswersEveryQueuedStoreAfterItsFlush() throws {
        let held = try GatedStore()
        try held.storeFirst("first")
        for index in 0..<50 { held.store("n\(index)") }
        let closed = DispatchGroup()
        let store = held.store
        DispatchQueue.global().async(group: closed) { store.close() }
        Thread.sleep(forTimeInterval: 0.2)
        #expect(held.answers.all.isEmpty, "close does not answer before the flush")

        held.gate.open()
        closed.wait()
        #expect(held.answers.all.count == 51, "every queued store is answered by close")
        #expect(try held.answers.all.map { try $0.get() } == Array(repeating: .stored, count: 51))
        #expect(try held.count() == [[.integer(51)]])
    }

    /// A disk that does not answer: `close(waitingAtMost:)` gives up and says so, and the close
    /// finishes in the background once the disk does.
    @Test func closeCanGiveUpOnADiskThatDoesNotAnswer() throws {
        let gated = try GatedStore()
        try gated.storeFirst("held")
        let started = Date()
        #expect(!gated.store.close(waitingAtMost: .milliseconds(300)))
        let waited = Date().timeIntervalSince(started)
        #expect(waited > 0.25 && waited < 2)
        gated.gate.open()
        try waitFor("the answer after the disk came back") { gated.answers.all.count == 1 }
        #expect(gated.store.close(waitingAtMost: .seconds(10)))
    }
}
