import Subscriptions

/// The rows the inputs applied so far in a write transaction may have changed, by key: each
/// purchase of their slices (`LedgerRows.key`), and each customer of their slices by its id and
/// every alias, with the customers they named and the aliases they made.
///
/// A read made before those inputs still holds for a later one when it read none of these rows
/// (`PreparedLedgerHandOff`).
public struct LedgerTouch: Equatable, Sendable {
    public var purchases: Set<String> = []
    public var customers: Set<String> = []

    public init() {}

    /// What applying `input` to the slice `before`, giving `after`, may have written.
    init(input: Ledger.Input, before: Ledger, after: Ledger) {
        for ledger in [before, after] {
            purchases.formUnion(ledger.subscriptions.keys.map { LedgerRows.key(.subscription(originalTransactionId: $0)) })
            purchases.formUnion(ledger.oneTimePurchases.keys.map { LedgerRows.key(.oneTime(transactionId: $0)) })
            for customer in ledger.customers.values {
                customers.insert(customer.appUserId)
                customers.formUnion(customer.aliases)
            }
            customers.formUnion(ledger.aliasOwners.keys)
            customers.formUnion(ledger.aliasOwners.values)
        }
        customers.formUnion(input.namedCustomerIds)
        if let key = input.purchaseKey { purchases.insert(LedgerRows.key(key)) }
    }

    public mutating func formUnion(_ other: LedgerTouch) {
        purchases.formUnion(other.purchases)
        customers.formUnion(other.customers)
    }

    /// Whether a slice's first reads for `input` (`LedgerRows.firstRound`: its purchase, the
    /// customers it names and so the customers found for them, the timer kept for its
    /// subscription) are untouched, so answers read before these writes still hold.
    public func leavesFirstRoundOf(_ input: Ledger.Input) -> Bool {
        if let key = input.purchaseKey, purchases.contains(LedgerRows.key(key)) { return false }
        return input.namedCustomerIds.allSatisfy { !customers.contains($0) }
    }
}
