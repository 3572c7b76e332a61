import Dispatch
import Foundation
import Subscriptions
import Testing
import Threads

@testable import Server
@testable import Storage
@testable import Tools

/// A stop does not wait for good on a scheduler tick whose writes wait for a disk that does not
/// answer: the service's shutdown then gives storage its deadline and exits, instead of hanging
/// before the deadline is ever counted.
@Suite struct SchedulerStopTests {
    @Test func aStopGivesUpOnATickStuckOnTheDiskAtItsDeadline() throws {
        let fixture = try ServerFixture()
        let holding = Locked(false)
        let released = DispatchSemaphore(value: 0)
        let held = DispatchSemaphore(value: 0)
        let store = try Store(
            path: fixture.databasePath, handOff: KeepReceived(), maxBatch: 512, readers: 2, onCommit: nil,
            flush: { descriptor in
                if holding.value {
                    held.signal()
                    released.wait()
                }
                return WALFlusher.fdatasync(descriptor)
            })
        defer { store.close() }
        // Due at once: a timer of an app no longer configured, which the tick removes in a write.
        try store.write { transaction in
            try PendingTimers.schedule(ExpirationTimer(originalTransactionId: "1", fireAtMs: 100), appId: "gone", in: transaction)
        }
        holding.withLock { $0 = true }
        let scheduler = Scheduler(config: try fixture.config(), store: store)
        scheduler.start()
        // The tick's write is committed and waits for the held flush.
        #expect(held.wait(timeout: .now() + 10) == .success, "the tick's write reaches the disk")

        let began = ContinuousClock.now
        #expect(!scheduler.stop(waitingUntil: .after(.milliseconds(500))), "the tick is still waiting for the disk")
        let waited = began.duration(to: .now)
        #expect(waited >= .milliseconds(500) && waited < .seconds(3))

        holding.withLock { $0 = false }
        released.signal()
        let due = { try? store.read { (rows) throws(StoreError) in try PendingTimers.due(atMs: 1000, limit: 10, from: rows) } }
        #expect(poll(seconds: 10) { due()?.isEmpty == true }, "the timer's write lands once the disk answers")
    }
}
