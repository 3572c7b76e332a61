/// What one store keeps decoded between the inputs applied to it: older facts (`FactCache`) and
/// purchases (`PurchaseCache`). Shared by ingest, posted transactions and the scheduler's timers,
/// which all apply inputs through the writer.
public struct LedgerCache: Sendable {
    public let facts: FactCache
    public let purchases: PurchaseCache

    public init(facts: FactCache = FactCache(), purchases: PurchaseCache = PurchaseCache()) {
        self.facts = facts
        self.purchases = purchases
    }
}
