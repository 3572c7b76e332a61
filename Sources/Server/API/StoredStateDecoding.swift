import Storage

extension StoreError {
    /// `body`, a read of the stored state about `appUserId`, with its errors as storage's: a
    /// storage error as it is, any other a stored document that does not decode (`.corrupt`).
    static func decoding<T>(stateOf appUserId: String, _ body: () throws -> T) throws(StoreError) -> T {
        do { return try body() } catch let error as StoreError { throw error } catch {
            throw StoreError(.corrupt, "stored state of \(appUserId) does not decode: \(error)")
        }
    }
}
