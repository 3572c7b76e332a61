import Foundation
import Synchronization
import Testing

@_spi(StoreSQL) @testable import Storage

@Suite struct RejectLogTests {
    @Test func countsEveryRejectAndKeepsTheNewestHundred() throws {
        let directory = try TemporaryDirectory()
        let store = try Store(path: directory.databasePath)
        defer { store.close() }

        for index in 0..<150 {
            let status = index.isMultiple(of: 3) ? "invalidCertificate" : "verificationFailure"
            store.recordReject(Reject(appId: "demo", status: status, reason: "reject \(index)", at: Int64(index)))
        }
        // The log read by this process has every reject it recorded.
        let log = try store.rejectLog()

        #expect(log.counts == ["invalidCertificate": 50, "verificationFailure": 100])
        #expect(log.recent.count == 100)
        #expect(log.recent.first == Reject(appId: "demo", status: "verificationFailure", reason: "reject 149", at: 149))
        #expect(log.recent.map(\.at) == Array((50..<150).reversed()).map(Int64.init))
        #expect(try rawQuery(directory.databasePath, "SELECT count(*) FROM rejects") == [[.integer(100)]])
    }

    /// A flood of rejects costs the writer a write a second, not one per reject: the first goes
    /// at once, the rest of the second together after it; counts lose nothing.
    @Test func aFloodOfRejectsIsWrittenOnceASecond() throws {
        let directory = try TemporaryDirectory()
        let commits = Atomic<Int>(0)
        let store = try Store(path: directory.databasePath, onCommit: { _ in commits.add(1, ordering: .relaxed) })
        let started = ContinuousClock.now
        for index in 0..<5000 {
            store.recordReject(Reject(appId: "demo", status: "verificationFailure", reason: "junk \(index)", at: Int64(index)))
        }
        let recording = ContinuousClock.now - started
        // The first reject's write, and perhaps one more if the loop outlasted the interval.
        usleep(200_000)
        #expect(commits.load(ordering: .relaxed) <= 1 + Int(recording / .seconds(1)))
        // The rest are written when their second is over, without anything else asking. Waited
        // for rather than slept on: under a loaded test run the write and its flush took longer
        // than a fixed 1.1 s (1 run in 6). The commit count below is what bounds the writes.
        let counted = { try rawQuery(directory.databasePath, "SELECT count FROM reject_counts") }
        try waitFor("the rest of the rejects") { try counted() == [[.integer(5000)]] }
        #expect(try counted() == [[.integer(5000)]])
        #expect(commits.load(ordering: .relaxed) <= 2 + Int(recording / .seconds(1)))
        store.recordReject(Reject(appId: "demo", status: "invalidCertificate", reason: "last", at: 5000))
        store.close()
        // Closing writes what was pending.
        #expect(
            try rawQuery(directory.databasePath, "SELECT status, count FROM reject_counts ORDER BY status")
                == [[.text("invalidCertificate"), .integer(1)], [.text("verificationFailure"), .integer(5000)]])
        #expect(try rawQuery(directory.databasePath, "SELECT count(*) FROM rejects") == [[.integer(100)]])
    }

    /// Rejects written in a shared transaction that is then rolled back (a notification in it
    /// failed, so each item is applied again alone) are written again, not lost: their batch is
    /// put back for the item's second try. Before, the second try found nothing left to write.
    @Test func rejectsOfARolledBackBatchAreWrittenAgain() throws {
        let held = try GatedStore(handOff: FailingHandOff(failing: "bad"))
        try held.storeFirst("first")
        // Written into the transaction kept open while the first commit is being flushed...
        held.store.recordReject(Reject(appId: "demo", status: "verificationFailure", reason: "forged", at: 1))
        try waitFor("the reject's write") { !held.store.hasPendingRejects }
        // ...which this notification's failing hand-off makes the writer roll back.
        held.store("bad")
        Thread.sleep(forTimeInterval: 0.2)
        held.gate.open()
        try waitFor("both answers") { held.answers.all.count == 2 }
        #expect(try held.answers.all.map { try $0.get() } == [.stored, .stored])
        let log = try held.store.rejectLog()
        #expect(log.counts == ["verificationFailure": 1])
        #expect(log.recent == [Reject(appId: "demo", status: "verificationFailure", reason: "forged", at: 1)])
        #expect(
            try rawQuery(held.directory.databasePath, "SELECT state FROM notifications WHERE notification_uuid = 'bad'")
                == [[.text("failed")]])
    }

    /// Nobody waits for a write of the reject log, so its failure (no room: `max_page_count`
    /// stands in for a full disk) is reported through `onRejectsFailed`, which the server logs
    /// and counts; the failed write also fails the health check. The rejects are kept and tried
    /// again every second, so they are written, and the health check clears, once there is room.
    @Test func aFailedWriteOfTheRejectLogIsReportedAndItsRejectsKept() throws {
        let directory = try TemporaryDirectory()
        let failures = Collected<StoreError>()
        let store = try Store(path: directory.databasePath, onRejectsFailed: { failures.append($0) })
        defer { store.close() }
        try store.write { transaction in
            let pages = try transaction.query("PRAGMA page_count").first?.first?.integerValue ?? 0
            try transaction.execute("PRAGMA max_page_count = \(pages)")
        }
        let reason = String(repeating: "r", count: 900)
        for index in 0..<100 {
            store.recordReject(Reject(appId: "demo", status: "verificationFailure", reason: reason, at: Int64(index)))
        }
        // The first reject may have been written on its own, into room left in a page.
        #expect((try store.rejectLog().counts["verificationFailure"] ?? 0) < 100, "no room: not all written")
        #expect(failures.all.count >= 1)
        #expect(failures.all.first?.code == .io)
        #expect(throws: StoreError.self) { try store.healthCheck() }

        // Room again: the failed write is tried again on its own (no reject comes to trigger one),
        // and its commit clears the health check.
        try store.write { transaction in try transaction.execute("PRAGMA max_page_count = 1000000") }
        try waitFor("the rejects written again") {
            try rawQuery(directory.databasePath, "SELECT count FROM reject_counts") == [[.integer(100)]]
        }
        try store.healthCheck()
        #expect(try store.rejectLog().recent.count == 100)
    }
}

/// A hand-off that throws for one notification and keeps the others as they are.
struct FailingHandOff: NotificationHandOff {
    struct Failure: Error {}
    let failing: String

    func handOff(_ record: NotificationRecord, in transaction: WriteTransaction) throws -> NotificationState {
        if record.notificationUUID == failing { throw Failure() }
        return record.state
    }
}
