/// Something that answers SQL queries: the writer's transaction or a reader's snapshot.
public protocol RowReader {
    func query(_ sql: String, _ arguments: [SQLValue]) throws(StoreError) -> [[SQLValue]]
}

extension WriteTransaction: RowReader {}
extension ReadTransaction: RowReader {}
