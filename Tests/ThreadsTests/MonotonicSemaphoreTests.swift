import Dispatch
import Foundation
import Glibc
import Synchronization
import Testing

@testable import Threads

@Suite("MonotonicSemaphore")
struct MonotonicSemaphoreTests {
    private static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// The semaphore reads a `DispatchTime` deadline as a time of `CLOCK_MONOTONIC`: that is the
    /// clock Dispatch counts its uptime on here. Were it another, every deadline would be off.
    @Test func dispatchUptimeIsTheMonotonicClock() {
        let before = Self.monotonicNanoseconds()
        let uptime = DispatchTime.now().uptimeNanoseconds
        let after = Self.monotonicNanoseconds()
        #expect(uptime >= before && uptime <= after, "uptime \(uptime) outside [\(before), \(after)]")
    }

    /// A timed wait nobody signals lasts its whole timeout by the monotonic clock, never less.
    /// (`DispatchSemaphore` ended 500 ms waits after 497.7 ms while NTP slewed the wall clock.)
    @Test func anUnsignalledWaitLastsItsTimeoutByTheMonotonicClock() {
        let semaphore = MonotonicSemaphore()
        for timeout in [Duration.milliseconds(30), .milliseconds(200)] {
            let began = ContinuousClock.now
            #expect(semaphore.wait(timeout: .after(timeout)) == .timedOut)
            let waited = began.duration(to: .now)
            #expect(waited >= timeout && waited < timeout + .seconds(2), "waited \(waited) for \(timeout)")
        }
    }

    /// Signals given before the waits are kept, one per wait; a deadline already passed only takes
    /// one that is there.
    @Test func signalsAreCountedAndTakenOneEach() {
        let semaphore = MonotonicSemaphore(value: 1)
        semaphore.signal()
        #expect(semaphore.wait(timeout: .now()) == .success)
        semaphore.wait()
        #expect(semaphore.wait(timeout: .now()) == .timedOut)
        #expect(semaphore.wait(timeout: .after(.milliseconds(5))) == .timedOut)
        semaphore.signal()
        #expect(semaphore.wait(timeout: .distantFuture) == .success)
    }

    /// A waiter blocked with a deadline far off wakes at the signal, not at the deadline.
    @Test func aSignalWakesATimedWaiterAtOnce() {
        let semaphore = MonotonicSemaphore()
        let woke = MonotonicSemaphore()
        let waited = Mutex<Duration?>(nil)
        NamedThread.start("sem-waiter") {
            let began = ContinuousClock.now
            let result = semaphore.wait(timeout: .after(.seconds(30)))
            waited.withLock { $0 = result == .success ? began.duration(to: .now) : nil }
            woke.signal()
        }
        Thread.sleep(forTimeInterval: 0.05)
        semaphore.signal()
        #expect(woke.wait(timeout: .after(.seconds(10))) == .success)
        let took = waited.withLock { $0 }
        #expect(took != nil && took! < .seconds(10), "woke after \(String(describing: took))")
    }

    /// Many signallers and many waiters: every signal is taken exactly once, none is lost.
    @Test func concurrentSignalsAreEachTakenOnce() {
        let semaphore = MonotonicSemaphore()
        let taken = Atomic<Int>(0)
        let group = DispatchGroup()
        let waiters = 8
        let perThread = 500
        for _ in 0..<waiters {
            group.enter()
            NamedThread.start("sem-taker") {
                for _ in 0..<perThread {
                    if semaphore.wait(timeout: .after(.seconds(20))) == .success { taken.add(1, ordering: .relaxed) }
                }
                group.leave()
            }
        }
        for _ in 0..<4 {
            NamedThread.start("sem-giver") {
                for _ in 0..<(waiters * perThread / 4) { semaphore.signal() }
            }
        }
        #expect(group.wait(timeout: .after(.seconds(30))) == .success)
        #expect(taken.load(ordering: .relaxed) == waiters * perThread)
        #expect(semaphore.wait(timeout: .now()) == .timedOut, "no signal left over")
    }
}
