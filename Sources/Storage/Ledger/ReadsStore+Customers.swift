/// Lookups commands make by name, on any store that reads.
extension ReadsStore {
    /// The id of the customer `name` names in `appId`, by its own id or an alias; nil when none.
    public func appUserId(named name: String, appId: String) throws(StoreError) -> String? {
        try read { (rows) throws(StoreError) in
            try StoreError.decoding { try CustomerRows.customer(named: name, appId: appId, from: rows)?.appUserId }
        }
    }

    /// Whether `appId` has a subscription of original transaction `id` stored.
    public func hasSubscription(_ id: String, appId: String) throws(StoreError) -> Bool {
        try read { (rows) throws(StoreError) in try LedgerRows.subscriptionIds(appId: appId, only: id, from: rows).contains(id) }
    }
}
