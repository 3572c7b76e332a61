import AppStore
import Foundation
import SubscriptionsFixtures
import Testing

@testable import Subscriptions

/// The shell's contract: applying each input to a slice (the rows `Ledger.Input` names) and
/// writing the rows back gives the same state and effects as applying it to the whole ledger.
@Suite struct SliceTests {
    /// Storage rows, as a shell would keep them.
    struct Store {
        var ledger = Ledger(configuration: LedgerConfiguration(trackNewPurchasesFromServerNotifications: true))

        /// The rows an input needs, as `LedgerRows.slice` loads them.
        func slice(for input: Ledger.Input) -> Ledger {
            var slice = Ledger(configuration: ledger.configuration)
            var owners: [String?] = []
            func load(_ key: PurchaseKey) {
                switch key {
                case .subscription(let id):
                    slice.subscriptions[id] = ledger.subscriptions[id]
                    owners.append(ledger.subscriptions[id]?.journal.ownerAppUserId)
                case .oneTime(let id):
                    slice.oneTimePurchases[id] = ledger.oneTimePurchases[id]
                    owners.append(ledger.oneTimePurchases[id]?.journal.ownerAppUserId)
                }
            }
            /// Every purchase a customer owns.
            func loadAll(of customer: String) {
                for id in ledger.customers[customer]?.originalTransactionIds ?? [] {
                    load(.subscription(originalTransactionId: id))
                }
                for id in ledger.customers[customer]?.oneTimeTransactionIds ?? [] { load(.oneTime(transactionId: id)) }
            }
            var named: [String] = []
            for id in input.namedCustomerIds {
                if let owner = ledger.aliasOwners[id] { slice.aliasOwners[id] = owner }
                named.append(ledger.customerId(id))
            }
            if let key = input.purchaseKey {
                load(key)
                if input.linksToNamedCustomer, let owner = owners.last ?? nil, Ledger.isAnonymous(owner) { loadAll(of: owner) }
            } else if case .notificationReceived(let facts) = input {
                slice.unattachedFacts[facts.notificationUUID] = ledger.unattachedFacts[facts.notificationUUID]
            }
            if let replaced = input.replacedOriginalTransactionId { load(.subscription(originalTransactionId: replaced)) }
            for id in input.movesEveryPurchaseOfCustomers { loadAll(of: ledger.customerId(id)) }
            for id in owners.compactMap({ $0 }) + named {
                slice.customers[id] = ledger.customers[id]
            }
            return slice
        }

        /// Writes back every row of the slice, removes the customers it dropped, and points every
        /// alias at its customer (`customer_aliases`).
        mutating func save(_ slice: Ledger, loaded: Ledger) {
            ledger.subscriptions.merge(slice.subscriptions) { $1 }
            ledger.oneTimePurchases.merge(slice.oneTimePurchases) { $1 }
            for id in loaded.customers.keys where slice.customers[id] == nil {
                ledger.customers[id] = nil
                ledger.aliasOwners = ledger.aliasOwners.filter { $0.value != id }
            }
            ledger.customers.merge(slice.customers) { $1 }
            for customer in slice.customers.values {
                for alias in customer.aliases where alias != customer.appUserId { ledger.aliasOwners[alias] = customer.appUserId }
            }
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
            let loaded = store.slice(for: input)
            var slice = loaded
            let effects = slice.apply(input, at: now)
            store.save(slice, loaded: loaded)
            #expect(effects == expected)
        }
        let same = store.ledger == whole
        #expect(same, "seed \(seed): the slices ended in another state")
    }
}
