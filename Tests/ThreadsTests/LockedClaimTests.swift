import Dispatch
import Synchronization
import Testing

@testable import Threads

/// A flag claimed by many threads at once is claimed once.
@Suite struct LockedClaimTests {
    @Test func oneClaimWins() {
        let flag = Locked(false)
        let wins = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 64) { _ in
            if flag.claim() { wins.withLock { $0 += 1 } }
        }
        #expect(wins.withLock { $0 } == 1)
        #expect(flag.value)
        #expect(!flag.claim())
    }
}
