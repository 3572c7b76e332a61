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
    /// A statement sent ahead: its SQL, for messages, and where its rows go when it is a query
    /// whose answer is wanted (`sendQuery`).
    struct SentStatement {
        let sql: String
        let answer: PendingRows?
    }

    /// The most statements sent ahead before their answers are read: the answers wait in the
    /// socket's buffers meanwhile, which must not fill.
    static let pipelineDepth = 256

    /// Sends one statement whose outcome the caller does not read; the connection must be in a
    /// transaction (`isInTransaction` counts it as open until the answers are read).
    func send(_ sql: String, _ arguments: [SQLValue]) throws(StoreError) {
        try send(sql, arguments, answer: nil)
    }

    /// Sends one query without waiting; its rows are in the result once the statements sent
    /// ahead are read (by the next statement that waits, or `flushSent`), in the same round trip.
    func sendQuery(_ sql: String, _ arguments: [SQLValue]) throws(StoreError) -> PendingRows {
        let answer = PendingRows()
        try send(sql, arguments, answer: answer)
        return answer
    }

    private func send(_ sql: String, _ arguments: [SQLValue], answer: PendingRows?) throws(StoreError) {
        try Self.refuseNUL(in: arguments, sql)
        if pipelined.count >= Self.pipelineDepth { try drainPipeline() }
        let name = try statement(sql, arguments)
        if PQpipelineStatus(connection) == PQ_PIPELINE_OFF, PQenterPipelineMode(connection) != 1 {
            throw failure("entering pipeline mode")
        }
        let sent = Self.withParameters(arguments) { count, values, lengths, formats in
            PQsendQueryPrepared(connection, name, count, values, lengths, formats, 0)
        }
        guard sent == 1 else { throw failure(sql) }
        pipelined.append(SentStatement(sql: sql, answer: answer))
    }

    /// Runs `statements` in one round trip (with any sent ahead); returns each one's rows.
    func queryAll(_ statements: [(sql: String, arguments: [SQLValue])]) throws(StoreError) -> [[[SQLValue]]] {
        guard statements.count > 1 || !pipelined.isEmpty else {
            return try statements.map { (statement) throws(StoreError) in try query(statement.sql, statement.arguments) }
        }
        // Statements sent ahead go in the same round trip, when all fit in one pipeline.
        if pipelined.count + statements.count >= Self.pipelineDepth { try drainPipeline() }
        guard statements.count < Self.pipelineDepth else {
            let half = statements.count / 2
            return try queryAll(Array(statements[..<half])) + queryAll(Array(statements[half...]))
        }
        // Each prepared first: preparing one not yet prepared reads the pipeline's answers, which
        // must not be those of the queries sent here.
        for statement in statements { _ = try self.statement(statement.sql, statement.arguments) }
        for statement in statements { try send(statement.sql, statement.arguments) }
        let results = try drainPipeline(keepingLast: statements.count)
        defer { results.forEach { PQclear($0) } }
        return results.map { Self.rows(of: $0) }
    }

    /// Reads the answer of every statement sent ahead and leaves pipeline mode; throws the first
    /// failure among them. Returns the results of the last `keepingLast` statements, which the
    /// caller clears.
    @discardableResult
    func drainPipeline(keepingLast: Int = 0) throws(StoreError) -> [OpaquePointer] {
        let statements = pipelined
        pipelined.removeAll()
        guard !statements.isEmpty else { return [] }
        roundTrips += 1
        guard PQpipelineSync(connection) == 1 else { throw failure("ending a pipeline") }
        var firstFailure: StoreError?
        var kept: [OpaquePointer] = []
        for (index, statement) in statements.enumerated() {
            // Each statement's answer, then a null that ends it.
            var answered = false
            while let result = PQgetResult(connection) {
                let status = PQresultStatus(result)
                if status == PGRES_FATAL_ERROR, firstFailure == nil {
                    do throws(StoreError) { try check(result, statement.sql) } catch { firstFailure = error }
                }
                if status == PGRES_TUPLES_OK, let answer = statement.answer, answer.rows == nil {
                    answer.rows = Self.rows(of: result)
                }
                if index >= statements.count - keepingLast, !answered, status != PGRES_PIPELINE_ABORTED {
                    kept.append(result)
                    answered = true
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
        if firstFailure == nil, !isConnected { firstFailure = failure(statements[statements.count - 1].sql) }
        if firstFailure == nil, kept.count != min(keepingLast, statements.count) {
            firstFailure = StoreError(.io, "a pipeline answered \(kept.count) of \(keepingLast) statements")
        }
        if let firstFailure {
            kept.forEach { PQclear($0) }
            throw firstFailure
        }
        return kept
    }

    /// The connection's last error, for `what`.
    private func failure(_ what: String) -> StoreError {
        StoreError(
            isConnected ? .io : .unavailable,
            "\(what.prefix(100).split(separator: "\n").joined(separator: " ")): "
                + Self.oneLine(Self.text(PQerrorMessage(connection))))
    }
}
