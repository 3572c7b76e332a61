import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Threads

/// A pool's threads run what is submitted, oldest first; work that blocks holds only them; a
/// stopped pool drops what is queued and takes nothing more.
@Suite struct WorkerPoolTests {
    @Test func workRunsInOrderOnOneThread() {
        let pool = WorkerPool(name: "pool-test", threads: 1)
        defer { pool.stop() }
        let seen = Mutex<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        for index in 0..<200 {
            pool.submit {
                seen.withLock { $0.append(index) }
                if index == 199 { done.signal() }
            }
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(seen.withLock { $0 } == Array(0..<200))
    }

    @Test func blockedWorkHoldsOnlyItsThreadAndStopDropsTheQueue() {
        let pool = WorkerPool(name: "pool-test", threads: 2)
        let release = DispatchSemaphore(value: 0)
        let ran = Mutex(0)
        let other = DispatchSemaphore(value: 0)
        pool.submit { release.wait() }
        pool.submit { other.signal() }
        // One thread blocked, the other still runs work.
        #expect(other.wait(timeout: .now() + 10) == .success)
        pool.submit { release.wait() }
        Thread.sleep(forTimeInterval: 0.1)
        // Both blocked: this waits its turn.
        pool.submit { ran.withLock { $0 += 1 } }
        #expect(pool.queued == 1)
        pool.stop()
        #expect(pool.queued == 0)
        release.signal()
        release.signal()
        pool.submit { ran.withLock { $0 += 1 } }
        Thread.sleep(forTimeInterval: 0.2)
        #expect(ran.withLock { $0 } == 0)
    }
}
