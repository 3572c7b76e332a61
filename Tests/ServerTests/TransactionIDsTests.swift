import Foundation
import Synchronization
import Testing

@testable import Tools

/// The simulated App Store's transaction ids, taken from one counter file under a lock.
@Suite struct TransactionIDsTests {
    /// Ids taken at the same millisecond, through separate opens of the counter (as separate
    /// processes open it), are all different, and each is above the last.
    @Test func idsTakenAtOnceAreAllDifferent() throws {
        let directory = TestDirectory("transaction-ids")
        let taken = Mutex<[String]>([])
        runOnThreads(4) { _ in
            for _ in 0..<25 {
                let id = try? TransactionIDs(directory: directory.url).next(nowMs: 1_767_225_600_000)
                taken.withLock { $0.append(id ?? "none") }
            }
        }
        let ids = taken.withLock { $0 }
        #expect(Set(ids).count == 100, "\(ids.sorted())")
        #expect(ids.allSatisfy { $0.count == 16 && $0.hasPrefix("2") })
        let next = try TransactionIDs(directory: directory.url).next(nowMs: 1_767_225_600_000)
        #expect(ids.allSatisfy { Int64($0)! < Int64(next)! })
    }

    /// The counter never falls below the clock's floor: a deleted counter file, or stories saved
    /// before it existed, cannot make an id come back.
    @Test func idsStayAboveTheClocksFloor() throws {
        let directory = TestDirectory("transaction-ids")
        let earlier = try TransactionIDs(directory: directory.url).next(nowMs: 1_767_225_600_000)
        try FileManager.default.removeItem(at: TransactionIDs(directory: directory.url).file)
        let later = try TransactionIDs(directory: directory.url).next(nowMs: 1_767_225_600_001)
        #expect(Int64(later)! > Int64(earlier)!)
        #expect(Int64(earlier)! > Int64("2\(1_767_225_600_000 % 10_000_000_000)00001")!, "above an id a story made before")
    }
}
