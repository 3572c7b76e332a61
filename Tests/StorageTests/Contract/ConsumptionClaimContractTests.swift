import Foundation
import Testing
import Threads

@testable import Storage

/// Answers to Apple's consumption requests claimed by one pass at a time
/// (`Store.claimDueConsumptionAnswer`): two nodes on one database never send the same answer
/// together, the same on every engine.
@Suite("Storage contract: consumption answer claims")
struct ConsumptionClaimContractTests {
    typealias S = StoreUnderTest
    static let lease: Int64 = 600_000

    /// A subscription of customer 1 and `requests` consumption requests about it, an hour apart,
    /// each with its pending answer.
    static func requests(_ engine: ContractEngine, count: Int) throws -> StoreUnderTest {
        let under = try StoreUnderTest(engine)
        try under.subscribe(1, original: "100")
        let transaction = S.transaction(
            "100", original: "100", purchase: S.t0, expires: S.t0 + 30 * S.day, customer: S.customer(1))
        for n in 0..<count {
            let at = S.t0 + S.day + Int64(n) * 3_600_000
            _ = try under.store.store(S.record(.consumptionRequest, uuid: "consumption-\(n)", at: at, transaction: transaction))
        }
        #expect(try under.store.enqueueConsumptionRequests(appIds: [S.appId], sinceMs: S.t0, nowMs: S.t0 + 2 * S.day) == count)
        return under
    }

    @Test(arguments: ContractEngine.allCases)
    func aClaimedAnswerGoesToNoOtherPassUntilItsLeaseEnds(_ engine: ContractEngine) throws {
        let under = try Self.requests(engine, count: 1)
        let now = S.t0 + 2 * S.day
        let claimed = try #require(try under.store.claimDueConsumptionAnswer(nowMs: now, leaseMs: Self.lease))
        #expect(claimed.notificationUUID == "consumption-0")
        #expect(claimed.status == .pending)
        #expect(claimed.nextAttemptAtMs == now + Self.lease)
        // Another pass (another node) finds nothing due while the lease holds.
        #expect(try under.store.claimDueConsumptionAnswer(nowMs: now + Self.lease - 1, leaseMs: Self.lease) == nil)
        // The claimer stopped without recording: the answer is due again once the lease is over.
        let again = try #require(try under.store.claimDueConsumptionAnswer(nowMs: now + Self.lease, leaseMs: Self.lease))
        #expect(again.notificationUUID == "consumption-0")

        // The first claimer comes back late: what it says is not saved over the claim that holds.
        var late = claimed
        late.attempts = 1
        late.nextAttemptAtMs = now + 1000
        late.lastError = "HTTP 503"
        #expect(try !under.store.recordConsumptionAnswer(late, claimedUntilMs: claimed.nextAttemptAtMs))

        // Recorded as sent by the claim that holds, it is nobody's again, and no late record moves it.
        var sent = again
        sent.status = .sent
        sent.attempts = 1
        sent.answeredAtMs = now + Self.lease
        #expect(try under.store.recordConsumptionAnswer(sent, claimedUntilMs: again.nextAttemptAtMs))
        #expect(try !under.store.recordConsumptionAnswer(late, claimedUntilMs: again.nextAttemptAtMs))
        #expect(try under.store.claimDueConsumptionAnswer(nowMs: now + 10 * Self.lease, leaseMs: Self.lease) == nil)
    }

    /// Oldest request first; an answer put back for a retry is due at its own time, not the lease's.
    @Test(arguments: ContractEngine.allCases)
    func claimsTakeTheOldestRequestFirstAndARetryWaitsForItsTime(_ engine: ContractEngine) throws {
        let under = try Self.requests(engine, count: 2)
        let now = S.t0 + 2 * S.day
        let claim = try #require(try under.store.claimDueConsumptionAnswer(nowMs: now, leaseMs: Self.lease))
        var first = claim
        let second = try #require(try under.store.claimDueConsumptionAnswer(nowMs: now, leaseMs: Self.lease))
        #expect([first.notificationUUID, second.notificationUUID] == ["consumption-0", "consumption-1"])
        #expect(try under.store.claimDueConsumptionAnswer(nowMs: now, leaseMs: Self.lease) == nil)

        first.attempts = 1
        first.nextAttemptAtMs = now + 1000
        first.lastError = "HTTP 503"
        #expect(try under.store.recordConsumptionAnswer(first, claimedUntilMs: claim.nextAttemptAtMs))
        #expect(try under.store.claimDueConsumptionAnswer(nowMs: now + 999, leaseMs: Self.lease) == nil)
        let retried = try #require(try under.store.claimDueConsumptionAnswer(nowMs: now + 1000, leaseMs: Self.lease))
        #expect(retried.notificationUUID == "consumption-0")
        #expect(retried.attempts == 1)
        #expect(retried.lastError == "HTTP 503")
    }

    /// Two nodes claiming at once, two passes each: each answer goes to exactly one of them.
    @Test(arguments: ContractEngine.allCases)
    func nodesClaimingAtOnceEachGetDifferentAnswers(_ engine: ContractEngine) throws {
        let under = try Self.requests(engine, count: 8)
        let other = try under.anotherNode()
        defer { other.close() }
        let nodes = [under.store, other]
        let now = S.t0 + 2 * S.day
        let claims = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { pass in
            while let answer = try? nodes[pass % 2].claimDueConsumptionAnswer(nowMs: now, leaseMs: Self.lease) {
                claims.withLock { $0.append(answer.notificationUUID) }
            }
        }
        let taken = claims.value
        #expect(taken.count == Set(taken).count, "an answer was claimed twice: \(taken.sorted())")
        // A pass that lost the race for the answer it chose ends early; the rest is claimed after.
        while let answer = try under.store.claimDueConsumptionAnswer(nowMs: now, leaseMs: Self.lease) {
            claims.withLock { $0.append(answer.notificationUUID) }
        }
        #expect(claims.value.sorted() == (0..<8).map { "consumption-\($0)" })
    }
}
