import CPostgres
import Foundation

/// One libpq connection: the PostgreSQL engine's counterpart of `SQLiteConnection`, in one thin
/// adapter.
///
/// Statements are written as for SQLite, with `?` placeholders; each is turned into PostgreSQL's
/// `$1, $2, …` (`PostgresPlaceholders`) and prepared once per connection. Integers and text are
/// sent as text, blobs as binary; results come back as text and are read by column type into
/// `SQLValue` (integers, reals, `bytea` as blobs, booleans as 0 or 1, anything else as text).
///
/// Not `Sendable`: a connection is used by one thread at a time (a pool hands it out).
final class PostgresConnection {
    let connection: OpaquePointer
    /// The name each statement was prepared under on this connection.
    private var prepared: [String: String] = [:]
    /// Statements sent in pipeline mode whose answers are not read yet (`send`, `sendQuery`).
    var pipelined: [SentStatement] = []
    /// How many times this connection has waited for the server's answer: what a transaction
    /// costs beyond its statements, which tests count.
    var roundTrips = 0

    /// Connects, and sets what every session of RevenueDot's relies on: UTC, and commits that
    /// return only once durable (`synchronous_commit`), since a 200 promises durability.
    ///
    /// With `use`, the session also holds the database's use lock (`PostgresUse`) for as long as
    /// it is connected, taken again after a reconnect.
    ///
    /// - Throws: `.unavailable` when the server cannot be reached or refuses the credentials (one
    ///   line naming the server, `url.description`, never the password), or when `use` cannot be
    ///   had.
    init(url: PostgresURL, use: PostgresUse? = nil) throws(StoreError) {
        connection = try Self.connect(url)
        self.url = url
        self.use = use
        try configureSession()
    }

    private let url: PostgresURL
    private let use: PostgresUse?

    /// How long the server lets a session sit inside a transaction without a statement before it
    /// ends the session: a node frozen (stopped, swapping) or cut off while it holds the
    /// cluster-wide write lock would otherwise hold every other node's writes for as long.
    static let idleInTransactionTimeout = "15s"

    /// The session's settings, whatever the database's or role's defaults. READ COMMITTED: a
    /// write transaction waits for the cluster-wide write lock, then must read what the node
    /// before it committed meanwhile, which a snapshot taken at its first statement (REPEATABLE
    /// READ, SERIALIZABLE) would not show. Snapshot reads ask for their isolation themselves.
    private func configureSession() throws(StoreError) {
        try execute(
            script: """
                SET default_transaction_isolation = 'read committed';
                SET synchronous_commit = on; SET TimeZone = 'UTC'; SET client_min_messages = warning;
                SET idle_in_transaction_session_timeout = '\(Self.idleInTransactionTimeout)';
                """)
        if let use {
            let taken = try query(use.trySQL, [.integer(PostgresUse.lockKey)]).first?.first == .integer(1)
            guard taken else { throw StoreError(.unavailable, use.refusal(url)) }
        }
    }

    /// Connects again when the connection was lost (the database restarted): its prepared
    /// statements went with it. Called before a transaction begins, never inside one.
    ///
    /// - Throws: `.unavailable` while the database cannot be reached.
    func reconnectIfLost() throws(StoreError) {
        guard !isConnected else { return }
        PQreset(connection)
        prepared.removeAll()
        pipelined.removeAll()
        guard isConnected else {
            throw StoreError(.unavailable, "cannot connect to \(url): \(Self.oneLine(Self.text(PQerrorMessage(connection))))")
        }
        try configureSession()
    }

    deinit {
        PQfinish(connection)
    }

    /// Whether the connection still works (false after the server went away).
    var isConnected: Bool { PQstatus(connection) == CONNECTION_OK }

    /// Whether a transaction is open (or failed and not yet rolled back).
    var isInTransaction: Bool {
        // Statements are sent ahead only inside a transaction, which stays open until they are read.
        guard pipelined.isEmpty else { return true }
        let status = PQtransactionStatus(connection)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR
    }

    /// Runs statements without arguments, in one round trip (schema scripts, `BEGIN`, `COMMIT`).
    func execute(script: String) throws(StoreError) {
        if !pipelined.isEmpty { try drainPipeline() }
        roundTrips += 1
        let result = PQexec(connection, script)
        defer { PQclear(result) }
        try check(result, script)
        try checkCommitted(result, script)
    }

    /// PostgreSQL answers `COMMIT` of a transaction that failed by rolling it back, without an
    /// error (its tag says `ROLLBACK`): that is a failed commit here.
    private func checkCommitted(_ result: OpaquePointer?, _ sql: String) throws(StoreError) {
        guard sql.utf8.count == 6, sql.uppercased() == "COMMIT", Self.text(PQcmdStatus(result)) == "ROLLBACK" else { return }
        throw StoreError(.invalid, "COMMIT: the transaction had failed, and was rolled back")
    }

    /// Runs one statement; returns how many rows it changed.
    @discardableResult
    func run(_ sql: String, _ arguments: [SQLValue] = []) throws(StoreError) -> Int {
        let result = try execute(sql, arguments)
        defer { PQclear(result) }
        try checkCommitted(result, sql)
        return Int(Self.text(PQcmdTuples(result))) ?? 0
    }

    /// Runs one query; returns its rows.
    func query(_ sql: String, _ arguments: [SQLValue] = []) throws(StoreError) -> [[SQLValue]] {
        let result = try execute(sql, arguments)
        defer { PQclear(result) }
        return Self.rows(of: result)
    }

    /// The rows of a query's result, each value read by its column's type.
    static func rows(of result: OpaquePointer?) -> [[SQLValue]] {
        let columns = PQnfields(result)
        let types = (0..<columns).map { PQftype(result, $0) }
        return (0..<PQntuples(result)).map { row in
            (0..<columns).map { column in
                guard PQgetisnull(result, row, column) == 0, let bytes = PQgetvalue(result, row, column) else { return .null }
                return Self.value(bytes, length: Int(PQgetlength(result, row, column)), type: types[Int(column)])
            }
        }
    }

    // MARK: - Statements

    /// Runs one prepared statement and returns its result, which the caller clears; with
    /// statements sent ahead (`send`), it goes out after them in the same round trip, and the
    /// first of theirs that failed is thrown instead.
    private func execute(_ sql: String, _ arguments: [SQLValue]) throws(StoreError) -> OpaquePointer? {
        if !pipelined.isEmpty {
            try send(sql, arguments)
            return try drainPipeline(keepingLast: 1).last
        }
        try Self.refuseNUL(in: arguments, sql)
        let name = try statement(sql, arguments)
        roundTrips += 1
        let result = Self.withParameters(arguments) { count, values, lengths, formats in
            PQexecPrepared(connection, name, count, values, lengths, formats, 0)
        }
        do {
            try check(result, sql)
        } catch {
            PQclear(result)
            throw error
        }
        return result
    }

    /// `.invalid` for a text argument holding a NUL: PostgreSQL text cannot, and libpq would send
    /// only what comes before it, so the row would be stored cut short without a word.
    static func refuseNUL(in arguments: [SQLValue], _ sql: String) throws(StoreError) {
        for case .text(var value) in arguments {
            let holdsNUL = value.withUTF8 { bytes in
                guard let base = bytes.baseAddress else { return false }
                return memchr(base, 0, bytes.count) != nil
            }
            if holdsNUL {
                throw StoreError(.invalid, "a text value holds a NUL character, which PostgreSQL cannot store: \(sql)")
            }
        }
    }

    /// Calls `body` with `arguments` as libpq takes them: integers, reals and text as text, blobs
    /// as binary.
    static func withParameters<T>(
        _ arguments: [SQLValue],
        _ body: (Int32, [UnsafePointer<CChar>?], [Int32], [Int32]) -> T
    ) -> T {
        var buffers: [UnsafeMutablePointer<CChar>?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        defer { buffers.forEach { free($0) } }
        for argument in arguments {
            switch argument {
            case .null:
                buffers.append(nil)
                lengths.append(0)
                formats.append(0)
            case .integer(let value):
                buffers.append(strdup(String(value)))
                lengths.append(0)
                formats.append(0)
            case .real(let value):
                buffers.append(strdup("\(value)"))
                lengths.append(0)
                formats.append(0)
            case .text(let value):
                buffers.append(strdup(value))
                lengths.append(0)
                formats.append(0)
            case .blob(let value):
                // Allocated with malloc, as strdup's are, so that `free` releases both.
                let buffer = malloc(max(1, value.count))!.assumingMemoryBound(to: CChar.self)
                value.withUnsafeBytes { bytes in
                    if let base = bytes.baseAddress { memcpy(buffer, base, value.count) }
                }
                buffers.append(buffer)
                lengths.append(Int32(value.count))
                formats.append(1)
            }
        }
        return body(Int32(arguments.count), buffers.map { UnsafePointer($0) }, lengths, formats)
    }

    /// The name `sql` is prepared under, preparing it on first use with the types of `arguments`
    /// (`bigint`, `double precision`, `text`, `bytea`; a null's is left to the server), so that a
    /// placeholder the statement alone does not type (`SELECT ?`) gets one.
    func statement(_ sql: String, _ arguments: [SQLValue]) throws(StoreError) -> String {
        if let name = prepared[sql] { return name }
        // Preparing waits for its answer, which pipeline mode does not allow.
        if !pipelined.isEmpty { try drainPipeline() }
        let name = "s\(prepared.count)"
        let types: [Oid] = arguments.map { argument in
            switch argument {
            case .null: 0
            case .integer: 20
            case .real: 701
            case .text: 25
            case .blob: 17
            }
        }
        roundTrips += 1
        let result = PQprepare(connection, name, PostgresPlaceholders.numbered(sql), Int32(types.count), types)
        defer { PQclear(result) }
        try check(result, sql)
        prepared[sql] = name
        return name
    }

    func check(_ result: OpaquePointer?, _ sql: String) throws(StoreError) {
        let status = result.map(PQresultStatus) ?? PGRES_FATAL_ERROR
        guard status != PGRES_COMMAND_OK, status != PGRES_TUPLES_OK, status != PGRES_EMPTY_QUERY else { return }
        let state = Self.text(result.flatMap { PQresultErrorField($0, Int32(UInt8(ascii: "C"))) })
        let message = result.map { Self.text(PQresultErrorMessage($0)) } ?? Self.text(PQerrorMessage(connection))
        let code = isConnected ? Self.code(sqlState: state) : .unavailable
        throw StoreError(
            code,
            "\(sql.prefix(100).split(separator: "\n").joined(separator: " ")): "
                + "\(Self.oneLine(message)) [SQLSTATE \(state)]")
    }

    /// The store's code for a PostgreSQL error class (SQLSTATE, appendix A of its manual).
    static func code(sqlState: String) -> StoreError.Code {
        switch sqlState.prefix(2) {
        case "08", "57": .unavailable  // connection exceptions; the server shutting down
        case "40", "55": .busy  // serialization failure, deadlock; lock not available
        case "53", "58": .io  // insufficient resources (disk full); system error
        case "XX": .corrupt  // internal error: data corrupted, index corrupted
        default: .invalid  // constraint violations, syntax, undefined objects, bad data
        }
    }

    // MARK: - Values

    private static let boolean: UInt32 = 16
    private static let bytea: UInt32 = 17
    private static let integers: Set<UInt32> = [20, 21, 23, 26]
    private static let reals: Set<UInt32> = [700, 701, 1700]

    private static func value(_ bytes: UnsafePointer<CChar>, length: Int, type: UInt32) -> SQLValue {
        let text = String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)
        if integers.contains(type), let value = Int64(text) { return .integer(value) }
        if reals.contains(type), let value = Double(text) { return .real(value) }
        if type == boolean { return .integer(text == "t" ? 1 : 0) }
        if type == bytea, let data = hexBytes(text) { return .blob(data) }
        return .text(text)
    }

    /// `bytea` in PostgreSQL's hex output format: `\x` and two hex digits per byte.
    private static func hexBytes(_ text: String) -> Data? {
        let digits = Array(text.utf8)
        guard digits.count >= 2, digits[0] == UInt8(ascii: "\\"), digits[1] == UInt8(ascii: "x"), digits.count % 2 == 0
        else { return nil }
        func nibble(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var data = Data(capacity: (digits.count - 2) / 2)
        var index = 2
        while index < digits.count {
            guard let high = nibble(digits[index]), let low = nibble(digits[index + 1]) else { return nil }
            data.append(high << 4 | low)
            index += 2
        }
        return data
    }

    static func text(_ pointer: UnsafePointer<CChar>?) -> String {
        pointer.map { String(cString: $0) } ?? ""
    }

    static func text(_ pointer: UnsafeMutablePointer<CChar>?) -> String {
        text(UnsafePointer(pointer))
    }
}

extension PostgresConnection: StatementRunner {}
