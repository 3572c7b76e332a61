import Dispatch
import Foundation
import LoopbackClient
import Synchronization
import Testing

@testable import RevenueDot

@Suite("WorkPool")
struct WorkPoolTests {
    /// Holds every thread of `pool` busy until the returned semaphore is signalled once per thread.
    private static func occupy(_ pool: WorkPool, threads: Int) -> DispatchSemaphore {
        let release = DispatchSemaphore(value: 0)
        let occupied = DispatchGroup()
        for _ in 0..<threads {
            occupied.enter()
            #expect(
                pool.submit {
                    occupied.leave()
                    release.wait()
                })
        }
        occupied.wait()
        return release
    }

    @Test func oneThreadRunsItemsInArrivalOrder() {
        let pool = WorkPool(threads: 1, name: "test-pool", limit: 1000)
        let order = Mutex<[Int]>([])
        let done = DispatchGroup()
        for index in 0..<500 {
            done.enter()
            #expect(
                pool.submit {
                    order.withLock { $0.append(index) }
                    done.leave()
                })
        }
        done.wait()
        #expect(order.withLock { $0 } == Array(0..<500))
        pool.stop()
    }

    @Test func threadsRunAtOnce() {
        let pool = WorkPool(threads: 3, name: "test-pool", limit: 10)
        // Three items that each wait for the other two: they finish only if all three run together.
        let arrived = DispatchGroup()
        let finished = DispatchGroup()
        for _ in 0..<3 { arrived.enter() }
        for _ in 0..<3 {
            finished.enter()
            #expect(
                pool.submit {
                    arrived.leave()
                    arrived.wait()
                    finished.leave()
                })
        }
        #expect(finished.wait(timeout: .now() + 10) == .success)
        pool.stop()
    }

    /// Past `limit` waiting items the pool refuses, and `run` does the work on the caller's thread.
    @Test func aFullPoolLeavesTheWorkToTheCaller() {
        let pool = WorkPool(threads: 1, name: "test-pool", limit: 2)
        let release = Self.occupy(pool, threads: 1)
        #expect(pool.submit {})
        #expect(pool.submit {})
        #expect(pool.waiting == 2)
        #expect(!pool.submit { Issue.record("a refused item ran") })
        let caller = pthread_self()
        let ranHere = Mutex(false)
        pool.run { ranHere.withLock { $0 = pthread_equal(pthread_self(), caller) != 0 } }
        #expect(ranHere.withLock { $0 })
        release.signal()
        pool.stop()
        #expect(pool.waiting == 0)
    }

    /// `stop` runs everything queued before it, then refuses new work (which `run` does at once).
    @Test func stopRunsWhatIsQueuedAndRefusesMore() {
        let pool = WorkPool(threads: 2, name: "test-pool", limit: 100)
        let release = Self.occupy(pool, threads: 2)
        let ran = Atomic<Int>(0)
        for _ in 0..<50 { #expect(pool.submit { ran.add(1, ordering: .relaxed) }) }
        let stopped = DispatchSemaphore(value: 0)
        Thread {
            pool.stop()
            stopped.signal()
        }.start()
        // The stop waits for the held threads and the 50 queued items.
        #expect(stopped.wait(timeout: .now() + 0.2) == .timedOut)
        release.signal()
        release.signal()
        #expect(stopped.wait(timeout: .now() + 10) == .success)
        #expect(ran.load(ordering: .relaxed) == 50)
        #expect(!pool.submit { Issue.record("ran after stop") })
        let late = Mutex(false)
        pool.run { late.withLock { $0 = true } }
        #expect(late.withLock { $0 })
    }

    /// The server verifies on its pool: with every verifier held, a notification waits, and the
    /// one HTTP worker goes on answering other requests; freed, the pool answers the notification.
    @Test func theServerVerifiesOffItsHTTPWorkers() throws {
        let fixture = try ServerFixture(extraHTTP: #", "http": {"threads": 1}"#)
        let service = try fixture.startService()
        defer { service.shutdown() }
        let release = Self.occupy(service.verification, threads: WorkPool.defaultThreads)
        let status = Atomic<Int>(0)
        let answered = DispatchSemaphore(value: 0)
        let payload = try fixture.signer.notification()
        let port = service.port
        Thread {
            let response = try? LoopbackConnection(port: port).postNotification(payload)
            status.store(response?.status ?? -1, ordering: .relaxed)
            answered.signal()
        }.start()
        let deadline = Date().addingTimeInterval(10)
        while service.verification.waiting == 0, Date() < deadline { usleep(1000) }
        #expect(service.verification.waiting == 1)
        let other = try LoopbackConnection(port: port)
        for _ in 0..<5 { #expect(try other.request("GET", "/metrics").status == 200) }
        #expect(status.load(ordering: .relaxed) == 0)
        for _ in 0..<WorkPool.defaultThreads { release.signal() }
        #expect(answered.wait(timeout: .now() + 10) == .success)
        #expect(status.load(ordering: .relaxed) == 200)
    }
}
