import CPostgres
import Foundation

/// Statements sent without waiting for their answers (libpq's pipeline mode): a write whose
/// outcome the caller does not read goes out at once and is answered with the next statement
/// that waits, in the same round trip. The writer's transaction is a chain of such writes between
/// a few reads, and each round trip to the server costs more than the statement itself.
///
/// A failure of a statement sent ahead is thrown by the next statement that waits (`run`,
/// `query`, `execute(script:)`, `drainPipeline`); the server skips what follows it up to there,
/// and the transaction is failed, as it would have been at once.
extension PostgresConnection {
    /// The most statements sent ahead before their answers are read: the answers wait in the
    /// socket's buffers meanwhile, which must not fill.
    static let pipelineDepth = 256

    /// Sends one statement whose outcome the caller does not read; the connection must be in a
    /// transaction (`isInTransaction` counts it as open until the answers are read).
    func send(_ sql: String, _ arguments: [SQLValue]) throws(StoreError) {
        if pipelined.count >= Self.pipelineDepth { try drainPipeline() }
        let name = try statement(sql, arguments)
        if PQpipelineStatus(connection) == PQ_PIPELINE_OFF, PQenterPipelineMode(connection) != 1 {
            throw failure("entering pipeline mode")
        }
        let sent = Self.withParameters(arguments) { count, values, lengths, formats in
            PQsendQueryPrepared(connection, name, count, values, lengths, formats, 0)
        }
        guard sent == 1 else { throw failure(sql) }
        pipelined.append(sql)
    }

    /// Reads the answer of every statement sent ahead and leaves pipeline mode; throws the first
    /// failure among them. With `keepingLast`, returns the last statement's result, which the
    /// caller clears.
    @discardableResult
    func drainPipeline(keepingLast: Bool = false) throws(StoreError) -> OpaquePointer? {
        let statements = pipelined
        pipelined.removeAll()
        guard !statements.isEmpty else { return nil }
        guard PQpipelineSync(connection) == 1 else { throw failure("ending a pipeline") }
        var firstFailure: StoreError?
        var last: OpaquePointer?
        for (index, sql) in statements.enumerated() {
            // Each statement's answer, then a null that ends it.
            while let result = PQgetResult(connection) {
                let status = PQresultStatus(result)
                if status == PGRES_FATAL_ERROR, firstFailure == nil {
                    do throws(StoreError) { try check(result, sql) } catch { firstFailure = error }
                }
                if keepingLast, index == statements.count - 1, status != PGRES_PIPELINE_ABORTED, last == nil {
                    last = result
                } else {
                    PQclear(result)
                }
            }
            if !isConnected { break }
        }
        // The sync's own answer, after which the connection may leave pipeline mode.
        while isConnected, let result = PQgetResult(connection) {
            let status = PQresultStatus(result)
            PQclear(result)
            if status == PGRES_PIPELINE_SYNC { break }
        }
        if PQexitPipelineMode(connection) != 1, firstFailure == nil, isConnected {
            firstFailure = failure("leaving pipeline mode")
        }
        if let firstFailure = firstFailure ?? (isConnected ? nil : failure(statements[statements.count - 1])) {
            if let last { PQclear(last) }
            throw firstFailure
        }
        return last
    }

    /// The connection's last error, for `what`.
    private func failure(_ what: String) -> StoreError {
        StoreError(
            isConnected ? .io : .unavailable,
            "\(what.prefix(100).split(separator: "\n").joined(separator: " ")): "
                + Self.text(PQerrorMessage(connection)).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
