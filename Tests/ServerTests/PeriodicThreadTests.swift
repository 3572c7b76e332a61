import Dispatch
import Foundation
import Synchronization
import Testing

@testable import Server

@Suite("PeriodicThread")
struct PeriodicThreadTests {
    /// The OS shows the thread under its name (`top -H`, `perf`, the benchmark's CPU per thread),
    /// and it runs its passes until stopped.
    @Test func runsItsPassesUnderItsNameUntilStopped() {
        let thread = PeriodicThread()
        let names = Mutex<[String]>([])
        let passes = DispatchSemaphore(value: 0)
        thread.start("periodic-test", every: 0.01, immediately: true) {
            let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
            names.withLock { $0.append(comm.trimmingCharacters(in: .newlines)) }
            passes.signal()
        }
        for _ in 0..<3 { #expect(passes.wait(timeout: .now() + 10) == .success) }
        thread.beginStop()
        #expect(thread.waitStopped(until: .now() + 10))
        let seen = names.withLock { $0 }
        #expect(seen.count >= 3)
        #expect(seen.allSatisfy { $0 == "periodic-test" })
    }
}
