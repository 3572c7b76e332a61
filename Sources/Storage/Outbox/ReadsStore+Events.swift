extension ReadsStore {
    /// The events `filter` asks for, newest first, with their delivery (`EventRows.list`).
    public func events(_ filter: EventFilter) throws(StoreError) -> [EventListing] {
        try read { (rows) throws(StoreError) in try EventRows.list(filter, from: rows) }
    }
}
