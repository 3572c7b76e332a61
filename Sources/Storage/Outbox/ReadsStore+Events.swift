extension ReadsStore {
    /// The events `filter` asks for, newest first, with their delivery (`EventRows.list`).
    public func events(_ filter: EventFilter) throws(StoreError) -> [EventListing] {
        try read { (rows) throws(StoreError) in try EventRows.list(filter, from: rows) }
    }

    /// The app event `id` belongs to; nil when no event has that id.
    public func appId(ofEvent id: String) throws(StoreError) -> String? {
        try read { (rows) throws(StoreError) in try EventRows.appId(ofEvent: id, from: rows) }
    }
}
