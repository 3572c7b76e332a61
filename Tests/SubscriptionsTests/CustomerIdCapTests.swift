import Testing

@testable import Subscriptions

@Suite struct CustomerIdCapTests {
    static func customer(_ id: String, aliases count: Int, prefix: String) -> CustomerState {
        var customer = CustomerState(appUserId: id, firstSeenMs: 1)
        for index in 0..<count { customer.aliases.insertSorted("\(prefix)\(index)") }
        return customer
    }

    /// Ids counted once each, whoever holds them; two names of one customer join nothing.
    @Test(
        arguments: [
            // 998 aliases + its own id + one new name: 1,000.
            (998, nil, false), (999, nil, true),
            // Two customers' ids together, each name counted once: 501 + 499 is 1,000.
            (500, 498, false), (500, 499, true),
        ] as [(Int, Int?, Bool)])
    func joiningCountsEveryIdOnce(kept: Int, joining: Int?, refused: Bool) {
        let crowd = Self.customer("crowd", aliases: kept, prefix: "a")
        let other = joining.map { Self.customer("other", aliases: $0, prefix: "b") }
        #expect(CustomerIdCap.refusesJoining(crowd, named: "crowd", other, otherNamed: other?.appUserId ?? "new") == refused)
        #expect(CustomerIdCap.refusesJoining(other, named: other?.appUserId ?? "new", crowd, otherNamed: "crowd") == refused)
    }

    @Test func namesOfOneCustomerJoinNothing() {
        let crowd = Self.customer("crowd", aliases: 1_500, prefix: "a")
        #expect(!CustomerIdCap.refusesJoining(crowd, named: "a7", crowd, otherNamed: "crowd"))
        #expect(CustomerIdCap.refusesJoining(crowd, named: "crowd", nil, otherNamed: "newcomer"))
        #expect(!CustomerIdCap.refusesJoining(nil, named: "x", nil, otherNamed: "y"))
    }

    /// A log-in past the cap merges nothing, as for a second anonymous device: the customer
    /// logged in to is there, and the anonymous one keeps its own ids.
    @Test func aLogInPastTheCapMergesNothing() {
        var ledger = Ledger(configuration: LedgerConfiguration())
        ledger.customers["$RCAnonymousID:a"] = Self.customer("$RCAnonymousID:a", aliases: 600, prefix: "$RCAnonymousID:x")
        ledger.customers["ida"] = Self.customer("ida", aliases: 500, prefix: "b")
        _ = ledger.apply(.customerAction(.loggedIn(appUserId: "$RCAnonymousID:a", newAppUserId: "ida")), at: .now)
        #expect(ledger.customers["$RCAnonymousID:a"] != nil)
        #expect(ledger.customers["ida"]?.aliases.count == 501)
        // Within it, the same log-in merges.
        ledger.customers["$RCAnonymousID:a"] = Self.customer("$RCAnonymousID:a", aliases: 10, prefix: "$RCAnonymousID:x")
        _ = ledger.apply(.customerAction(.loggedIn(appUserId: "$RCAnonymousID:a", newAppUserId: "ida")), at: .now)
        #expect(ledger.customers["$RCAnonymousID:a"] == nil)
        #expect(ledger.customerId("$RCAnonymousID:a") == "ida")
    }

    /// A purchase an anonymous customer owns, posted by a customer the two together would take
    /// past the cap, moves alone: no merge, no TRANSFER.
    @Test func aPostPastTheCapMovesThePurchaseAlone() {
        var shop = Harness(owner: "$RCAnonymousID:big")
        shop.send(Fixture.buy)
        let big = Self.customer("$RCAnonymousID:big", aliases: 990, prefix: "$RCAnonymousID:x")
        shop.ledger.customers["$RCAnonymousID:big"]?.aliases = big.aliases
        shop.ledger.customers["carol"] = Self.customer("carol", aliases: 20, prefix: "c")
        var posted = Fixture.p1
        posted.signedDate = Fixture.day(2)
        let moved = shop.apply(.transactionPosted(posted, appUserId: "carol"), atMs: Fixture.day(2))
        #expect(!moved.contains { $0.type == .transfer })
        #expect(shop.subscription.journal.ownerAppUserId == "carol")
        #expect(shop.ledger.customers["$RCAnonymousID:big"]?.originalTransactionIds == [])
        #expect(shop.ledger.customers["carol"]?.aliases.count == 21)
    }
}
