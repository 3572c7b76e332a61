import Foundation
import Testing

@testable import HTTP

/// How a body takes and gives back its share of the budget, and when it is refused, without a
/// server.
@Suite("Request body and budget")
struct RequestBodyTests {
    /// One request's body fed pieces of zeros against `limit` and `budget`.
    private final class Feed {
        var body = RequestBody()
        let limit: Int
        let budget: BodyBudget

        init(limit: Int, budget: BodyBudget) {
            self.limit = limit
            self.budget = budget
        }

        func take() -> Data { body.take() }

        func send(_ count: Int) -> RequestBody.Outcome {
            Data(count: count).withUnsafeBytes { body.append($0, limit: limit, budget: budget) }
        }
    }

    @Test func budgetTakesWhatFitsAndNothingElse() {
        let budget = BodyBudget(limit: 100)
        #expect(budget.reserve(60))
        #expect(!budget.reserve(41))
        #expect(budget.reserve(40))
        #expect(!budget.reserve(1))
        #expect(!budget.reserve(Int.max))
        #expect(budget.reserve(0))
        budget.release(100)
        #expect(budget.inUse == 0)
        #expect(!budget.reserve(-1))
    }

    /// Bodies past 64 KiB leave a quarter of the budget to smaller ones, and never so much that
    /// a largest body could not fit in an empty budget.
    @Test func largeBodiesLeaveAShareToSmallOnes() {
        let small = BodyBudget.smallBodyBytes
        let budget = BodyBudget(limit: 4 << 20, maxBodyBytes: 1 << 20)
        #expect(budget.smallShare == 1 << 20)
        #expect(budget.reserve(3 << 20, bodySize: 3 << 20))
        #expect(!budget.reserve(1, bodySize: small + 1))
        #expect(budget.reserve(small, bodySize: small))
        #expect(budget.reserve((1 << 20) - small, bodySize: small))
        #expect(!budget.reserve(1, bodySize: 1))
        budget.release(4 << 20)
        #expect(budget.inUse == 0)
        // A budget no larger than a largest body keeps nothing back.
        #expect(BodyBudget(limit: 1 << 20, maxBodyBytes: 1 << 20).smallShare == 0)
        #expect(BodyBudget(limit: 5 << 19, maxBodyBytes: 1 << 21).smallShare == 1 << 19)
        let whole = BodyBudget(limit: 1 << 20, maxBodyBytes: 1 << 20)
        #expect(whole.reserve(1 << 20, bodySize: 1 << 20))
    }

    /// A body declared past 64 KiB is large from its first byte: its first bytes do not come
    /// out of the small bodies' share; an undeclared (chunked) one is small until it grows.
    @Test func aBodyDeclaredLargeNeverTakesTheSmallShare() {
        let budget = BodyBudget(limit: 4 << 20, maxBodyBytes: 1 << 20)
        #expect(budget.reserve(3 << 20, bodySize: 3 << 20))
        let declared = Feed(limit: 1 << 20, budget: budget)
        declared.body.declaredBytes = 1 << 20
        #expect(declared.send(1000) == .dropped)
        #expect(declared.body.refusal == .overBudget)
        #expect(budget.inUse == 3 << 20)
        let chunked = Feed(limit: 1 << 20, budget: budget)
        #expect(chunked.send(1000) == .kept)
        let small = Feed(limit: 1 << 20, budget: budget)
        small.body.declaredBytes = 14 << 10
        #expect(small.send(14 << 10) == .kept)
        #expect(budget.inUse == (3 << 20) + 1000 + (14 << 10))
    }

    @Test func bodyHoldsWhatArrivedUntilReleased() {
        let budget = BodyBudget(limit: 100)
        let feed = Feed(limit: 90, budget: budget)
        #expect(budget.inUse == 0)
        #expect(feed.send(50) == .kept)
        #expect(budget.inUse == 50)
        #expect(feed.send(30) == .kept)
        #expect(budget.inUse == 80)
        #expect(feed.take().count == 80)
        #expect(budget.inUse == 80)
        feed.body.release(to: budget)
        #expect(budget.inUse == 0)
    }

    @Test func bodyTakesItsShareAsItGrowsAndGivesItBackWhenRefused() {
        let budget = BodyBudget(limit: 100)
        #expect(budget.reserve(70))
        let feed = Feed(limit: 1000, budget: budget)
        #expect(feed.send(20) == .kept)
        #expect(budget.inUse == 90)
        #expect(feed.send(20) == .dropped)
        #expect(feed.body.refusal == .overBudget)
        #expect(feed.body.bytes.isEmpty)
        #expect(budget.inUse == 70)
        // A refused body takes nothing more, and one that grows past the limit is a 413.
        #expect(feed.send(1000) == .dropped)
        #expect(feed.body.refusal == .tooLarge)
        #expect(budget.inUse == 70)
    }

    @Test func bodyFarPastTheLimitIsCutOff() {
        let budget = BodyBudget(limit: 1 << 20)
        let feed = Feed(limit: 4096, budget: budget)
        #expect(feed.send(4096) == .kept)
        #expect(feed.send(1) == .dropped)
        #expect(feed.body.refusal == .tooLarge)
        #expect(budget.inUse == 0)
        #expect(feed.send(1 << 16) == .cutOff)
    }
}
