/// Something that answers SQL queries: the writer's transaction or a reader's snapshot.
public protocol RowReader {
    @_spi(StoreSQL) func query(_ sql: String, _ arguments: [SQLValue]) throws(StoreError) -> [[SQLValue]]
    /// Runs several queries and returns each one's rows, in order. An engine where each
    /// statement costs a round trip (PostgreSQL) sends them together, in one.
    @_spi(StoreSQL) func queries(_ statements: [(sql: String, arguments: [SQLValue])]) throws(StoreError) -> [[[SQLValue]]]
    /// Whether `queries` sends its statements together: a query that may turn out unneeded is
    /// then worth adding to them, rather than run later on its own.
    @_spi(StoreSQL) var sendsQueriesTogether: Bool { get }
}

extension RowReader {
    @_spi(StoreSQL) public var sendsQueriesTogether: Bool { false }

    @_spi(StoreSQL) public func queries(_ statements: [(sql: String, arguments: [SQLValue])]) throws(StoreError) -> [[[SQLValue]]]
    {
        var answers: [[[SQLValue]]] = []
        for statement in statements { answers.append(try query(statement.sql, statement.arguments)) }
        return answers
    }
}

extension WriteTransaction: RowReader {}
extension ReadTransaction: RowReader {}
