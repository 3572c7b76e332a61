import AppStore
import Foundation
import Testing

@testable import Subscriptions

/// The shell's contract: applying each input to a slice (the rows `Ledger.Input` names) and
/// writing the rows back gives the same state and effects as applying it to the whole ledger.
@Suite struct SliceTests {
    /// Storage rows, as a shell would keep them.
    struct Store {
        var ledger = Ledger(configuration: LedgerConfiguration(trackNewPurchasesFromServerNotifications: true))

        /// The rows an input needs.
        func slice(for input: Ledger.Input) -> Ledger {
            var slice = Ledger(configuration: ledger.configuration)
            var owners: [String?] = []
            if let key = input.purchaseKey {
                switch key {
                case .subscription(let id):
                    slice.subscriptions[id] = ledger.subscriptions[id]
                    owners.append(ledger.subscriptions[id]?.journal.ownerAppUserId)
                case .oneTime(let id):
                    slice.oneTimePurchases[id] = ledger.oneTimePurchases[id]
                    owners.append(ledger.oneTimePurchases[id]?.journal.ownerAppUserId)
                }
            } else if case .notificationReceived(let facts) = input {
                slice.unattachedFacts[facts.notificationUUID] = ledger.unattachedFacts[facts.notificationUUID]
            }
            if let replaced = input.replacedOriginalTransactionId {
                slice.subscriptions[replaced] = ledger.subscriptions[replaced]
                owners.append(ledger.subscriptions[replaced]?.journal.ownerAppUserId)
            }
            for id in owners.compactMap({ $0 }) + input.namedCustomerIds {
                slice.customers[id] = ledger.customers[id]
            }
            return slice
        }

        /// Writes back every row of the slice.
        mutating func save(_ slice: Ledger) {
            ledger.subscriptions.merge(slice.subscriptions) { $1 }
            ledger.oneTimePurchases.merge(slice.oneTimePurchases) { $1 }
            ledger.customers.merge(slice.customers) { $1 }
            ledger.unattachedFacts.merge(slice.unattachedFacts) { $1 }
        }
    }

    @Test(arguments: Array(UInt64(1)...30))
    func slicesBehaveLikeTheWhole(seed: UInt64) {
        let lifecycle = LifecycleGenerator(seed: seed, length: 10)
        var whole = Store().ledger
        var store = Store()
        var random = SplitMix64(seed: seed)
        let timer = ExpirationTimer(originalTransactionId: Apple.original, fireAtMs: lifecycle.endMs)
        let inputs = lifecycle.steps.shuffled(using: &random).map(\.input) + [.timerFired(timer)]
        for (index, input) in inputs.enumerated() {
            let now = Date(milliseconds: lifecycle.endMs + Int64(index))
            let expected = whole.apply(input, at: now)
            var slice = store.slice(for: input)
            let effects = slice.apply(input, at: now)
            store.save(slice)
            #expect(effects == expected)
        }
        let same = store.ledger == whole
        #expect(same, "seed \(seed): the slices ended in another state")
    }
}
