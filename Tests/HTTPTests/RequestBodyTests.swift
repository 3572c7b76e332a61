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
