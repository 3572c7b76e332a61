import Threads

extension Store {
    /// `write(_:)` for a body that says what it did: its result, once the write is committed.
    /// (A name of its own: as an overload of `write`, a trailing closure whose one expression has
    /// a value would pick it silently.)
    public func writeReturning<Result: Sendable>(
        _ body: @escaping @Sendable (WriteTransaction) throws -> Result
    ) throws(StoreError) -> Result {
        let result = Locked<Result?>(nil)
        try write { transaction in
            let value = try body(transaction)
            result.withLock { $0 = value }
        }
        // A committed write ran its body to the end.
        return result.value!
    }
}
