import AppStore
import Testing

@testable import Subscriptions

/// The period helpers read sort keys in place instead of sorting the transactions; they must
/// answer exactly as sorting the transactions by `isEarlierPeriod` does.
@Suite struct PeriodOrderTests {
    /// How the helpers compared whole transactions before they read keys in place.
    private static func isEarlierPeriod(_ lhs: JWSTransactionDecodedPayload, _ rhs: JWSTransactionDecodedPayload) -> Bool {
        SubscriptionState.periodOrder(lhs) < SubscriptionState.periodOrder(rhs)
    }

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
        // What the helpers were before they read keys in place.
        let sorted = state.transactions.values.sorted(by: Self.isEarlierPeriod)
        let current = state.transactions.values.max(by: Self.isEarlierPeriod)
        #expect(state.periodsInOrder == sorted)
        #expect(state.currentTransaction == current)
        #expect(state.originalPurchaseDateMs == (current?.originalPurchaseDate ?? sorted.first?.purchaseDate))
        for transaction in sorted {
            if let id = transaction.transactionId {
                #expect(state.periodNumber(of: id) == sorted.firstIndex { $0.transactionId == id }.map { $0 + 1 })
            }
            #expect(state.period(before: transaction) == sorted.last { Self.isEarlierPeriod($0, transaction) })
        }
        #expect(state.periodNumber(of: "") == nil)
        #expect(state.periodNumber(of: "unknown") == nil)
    }
}
