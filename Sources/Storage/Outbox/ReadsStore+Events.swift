extension ReadsStore {
    /// The events `filter` asks for, newest first, with their delivery (`EventRows.list`).
    public func events(_ filter: EventFilter) throws(StoreError) -> [EventListing] {
        try read { (rows) throws(StoreError) in try EventRows.list(filter, from: rows) }
    }

    /// The event a person named `typed`, as stored: its id and its app; nil when none has it.
    /// Event ids are written in lower case, so one typed or pasted in upper case names the same.
    public func event(named typed: String) throws(StoreError) -> (id: String, appId: String)? {
        try read { (rows) throws(StoreError) in
            for id in [typed] + (typed == typed.lowercased() ? [] : [typed.lowercased()]) {
                if let appId = try EventRows.appId(ofEvent: id, from: rows) { return (id, appId) }
            }
            return nil
        }
    }
}
