/// Consistent reads for the typed operations, on `Store` (beside its writer) and `StoreReader` (alone).
extension ReaderPool {
    /// `body` inside one read transaction: a consistent snapshot of committed data.
    func snapshot<T: Sendable>(_ body: @Sendable (ReadTransaction) throws(StoreError) -> T) throws(StoreError) -> T {
        try read { (connection) throws(StoreError) in
            try connection.beginSnapshot()
            defer { _ = try? connection.run("COMMIT") }
            return try body(ReadTransaction(connection: connection))
        }
    }
}
