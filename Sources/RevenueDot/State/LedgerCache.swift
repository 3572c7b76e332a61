/// What one store keeps decoded between the inputs applied to it: older facts (`FactCache`) and
/// purchases (`PurchaseCache`). Shared by ingest, posted transactions and the scheduler's timers,
/// which all apply inputs through the writer.
struct LedgerCache: Sendable {
    let facts: FactCache
    let purchases: PurchaseCache

    init(facts: FactCache = FactCache(), purchases: PurchaseCache = PurchaseCache()) {
        self.facts = facts
        self.purchases = purchases
    }
}
