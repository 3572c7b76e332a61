import AppStore
import SubscriptionsFixtures
import Testing

@testable import Subscriptions

/// The period helpers read sort keys in place instead of sorting the transactions, and read the
/// periods before the latest from their summaries (`EarlierPeriod`); they must answer exactly as
/// sorting every period's whole snapshot by `isEarlierPeriod` does.
@Suite struct PeriodOrderTests {
    /// How the helpers compared whole transactions before they read keys in place.
    private static func isEarlierPeriod(_ lhs: JWSTransactionDecodedPayload, _ rhs: JWSTransactionDecodedPayload) -> Bool {
        SubscriptionState.periodOrder(lhs) < SubscriptionState.periodOrder(rhs)
    }

    /// The helpers against sorting `whole`, every period's newest snapshot by key.
    private static func expectHelpersAgree(_ state: SubscriptionState, whole: [String: JWSTransactionDecodedPayload]) {
        let sorted = whole.values.sorted(by: Self.isEarlierPeriod)
        let current = whole.max {
            SubscriptionState.periodRank($0.value, $0.key) < SubscriptionState.periodRank($1.value, $1.key)
        }
        #expect(state.currentTransaction == current?.value)
        #expect(state.originalPurchaseDateMs == (current?.value.originalPurchaseDate ?? sorted.first?.purchaseDate))
        for transaction in sorted {
            if let id = transaction.transactionId {
                #expect(state.periodNumber(of: id) == sorted.firstIndex { $0.transactionId == id }.map { $0 + 1 })
            }
            #expect(
                state.periodType(before: transaction)
                    == sorted.last { Self.isEarlierPeriod($0, transaction) }.map(SubscriptionState.periodType(of:)))
        }
        #expect(state.periodNumber(of: "") == nil)
        #expect(state.periodNumber(of: "unknown") == nil)
    }

    /// A state as stored before summaries, every period whole: it answers as before until its
    /// next transaction.
    @Test(arguments: 0..<200)
    func helpersAgreeWithSortingTheTransactions(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var state = SubscriptionState(originalTransactionId: Apple.original)
        // Few distinct dates, so equal purchase dates (ordered by expiry, then by id) are common;
        // some dates and ids missing, and some ids repeated under other keys (a decoded state can
        // hold them), so periods that compare equal occur too.
        for index in 0..<Int.random(in: 0...12, using: &random) {
            let purchase = random.int64(in: 0...4) * Apple.day
            let id = random.chance(20) ? "t\(Int.random(in: 0...2, using: &random))" : "t\(index)"
            var transaction = Apple.transaction(
                id, purchase: purchase,
                expires: random.chance(30) ? purchase : purchase + random.int64(in: 1...3) * Apple.day,
                offer: random.chance(30) ? .introductory : nil, discount: random.chance(50) ? .freeTrial : nil)
            if random.chance(10) { transaction.purchaseDate = nil }
            if random.chance(10) { transaction.expiresDate = nil }
            if random.chance(10) { transaction.transactionId = nil }
            if random.chance(30) { transaction.originalPurchaseDate = nil }
            state.transactions["k\(index)"] = transaction
        }
        Self.expectHelpersAgree(state, whole: state.transactions)
    }

    /// Folded from facts in any order, a state keeps only the latest period whole and summarizes
    /// the others; the helpers still answer as if every period's newest snapshot were kept.
    @Test(arguments: 0..<100)
    func summarizedPeriodsAnswerAsWholeSnapshotsDo(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var facts: [VerifiedNotificationFacts] = []
        var whole: [String: JWSTransactionDecodedPayload] = [:]
        var signed = Apple.t0
        let periods = Int.random(in: 1...30, using: &random)
        for index in 0..<periods {
            // Few distinct start dates, so the order often falls to expiry or id.
            let purchase = Apple.t0 + random.int64(in: 0...Int64(periods / 3)) * 30 * Apple.day
            let id = "t\(index)"
            var transaction = Apple.transaction(
                id, purchase: purchase, expires: purchase + random.int64(in: 1...2) * 30 * Apple.day,
                offer: random.chance(20) ? .introductory : nil, discount: random.chance(50) ? .freeTrial : nil)
            if random.chance(20) { transaction.originalPurchaseDate = nil }
            signed += 1000
            facts.append(Apple.notification(.didRenew, uuid: "n-\(id)", signed: signed, transaction: transaction))
            transaction.signedDate = signed
            whole[id] = transaction
            // A later snapshot of the same period now and then: a refund, which wins by its date.
            if random.chance(20) {
                signed += 1000
                var refunded = transaction
                refunded.signedDate = signed
                refunded.revocationDate = purchase + Apple.day
                facts.append(Apple.notification(.refund, uuid: "n-refund-\(id)", signed: signed, transaction: refunded))
                whole[id] = refunded
            }
        }
        var state = SubscriptionState(originalTransactionId: Apple.original)
        for fact in facts.shuffled(using: &random) { _ = state.receive(PurchaseFact(fact)) }
        #expect(state.transactions.count == 1)
        #expect((state.earlierPeriods?.count ?? 0) == periods - 1)
        #expect(state.knownTransactionIds == Set(whole.keys))
        #expect(state.refolded() == state)
        Self.expectHelpersAgree(state, whole: whole)
    }
}
