import AppStore
import Testing

@testable import Subscriptions

/// The period helpers read sort keys in place instead of sorting the transactions; they must
/// answer exactly as sorting the transactions by `isEarlierPeriod` does.
@Suite struct PeriodOrderTests {
    @Test(arguments: 0..<40)
    func helpersAgreeWithSortingTheTransactions(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var state = SubscriptionState(originalTransactionId: Apple.original)
        // Few distinct dates, so equal purchase dates (ordered by expiry, then by id) are common.
        for index in 0..<Int.random(in: 0...12, using: &random) {
            let purchase = random.int64(in: 0...4) * Apple.day
            let transaction = Apple.transaction(
                "t\(index)", purchase: purchase,
                expires: random.chance(30) ? purchase : purchase + random.int64(in: 1...3) * Apple.day)
            state.transactions["t\(index)"] = transaction
        }
        let sorted = state.transactions.values.sorted(by: SubscriptionState.isEarlierPeriod)
        #expect(state.periodsInOrder == sorted)
        #expect(state.currentTransaction == sorted.last)
        #expect(state.originalPurchaseDateMs == (sorted.last?.originalPurchaseDate ?? sorted.first?.purchaseDate))
        for (position, transaction) in sorted.enumerated() {
            #expect(state.periodNumber(of: transaction.transactionId ?? "") == position + 1)
            #expect(state.period(before: transaction) == sorted.last { SubscriptionState.isEarlierPeriod($0, transaction) })
        }
        #expect(state.periodNumber(of: "unknown") == nil)
    }
}
