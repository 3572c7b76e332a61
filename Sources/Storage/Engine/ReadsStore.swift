/// Reads committed data: a store that writes (`Store`) or a database opened read-only
/// beside a server that has it (`StoreReader`).
public protocol ReadsStore: Sendable {
    /// Runs `body` in one read transaction: a consistent snapshot of committed data.
    func read<T: Sendable>(_ body: @Sendable (ReadTransaction) throws(StoreError) -> T) throws(StoreError) -> T
}

extension Store: ReadsStore {}
extension StoreReader: ReadsStore {}
