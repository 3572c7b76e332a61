import AppStore
import Foundation

/// The SQL that stores and reads notifications and their snapshots, shared by the writer and readers.
enum NotificationSQL {
    // MARK: - Writing

    /// Inserts a notification unless its UUID is already stored; `changes() == 0` means duplicate.
    ///
    /// `ON CONFLICT (notification_uuid) DO NOTHING` rather than `INSERT OR IGNORE`: the latter would
    /// also swallow NOT NULL and CHECK violations and report them as duplicates.
    static let insert = """
        INSERT INTO notifications (notification_uuid, app_id, notification_type, subtype, environment, bundle_id,
            signed_date, original_transaction_id, transaction_id, received_at, state, state_reason, signed_payload,
            transaction_original_transaction_id, transaction_product_id, transaction_environment,
            transaction_signed_date, transaction_json, renewal_original_transaction_id, renewal_product_id,
            renewal_environment, renewal_signed_date, renewal_json, compact_payload)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (notification_uuid) DO NOTHING
        """

    /// - Parameter compact: the payload's compact form (`JWSCompaction`); when given, it is stored
    ///   instead of `signedPayload`, which is left empty.
    static func insertArguments(_ record: NotificationRecord, compact: JWSCompaction.Compacted? = nil) -> [SQLValue] {
        let transaction = record.transaction
        let renewal = record.renewalInfo
        return [
            .text(record.notificationUUID), .text(record.appId), .text(record.notificationType),
            SQLValue(record.subtype), SQLValue(record.environment), SQLValue(record.bundleId),
            SQLValue(record.signedDate), SQLValue(record.originalTransactionId), SQLValue(record.transactionId),
            .integer(record.receivedAt), .text(record.state.rawValue), SQLValue(record.stateReason),
            .text(compact == nil ? record.signedPayload : ""),
            SQLValue(transaction?.originalTransactionId), SQLValue(transaction?.productId),
            SQLValue(transaction?.environment), SQLValue(transaction?.signedDate), SQLValue(transaction?.json),
            SQLValue(renewal?.originalTransactionId), SQLValue(renewal?.productId), SQLValue(renewal?.environment),
            SQLValue(renewal?.signedDate), SQLValue(renewal?.json), compact.map { .blob($0.body) } ?? .null,
        ]
    }

    /// Whether a notification with this UUID is stored (a row means a duplicate).
    static let exists = "SELECT 1 FROM notifications WHERE notification_uuid = ?"

    // MARK: - Reading

    private static let select = """
        SELECT n.notification_uuid, n.app_id, n.notification_type, n.subtype, n.environment, n.bundle_id,
            n.signed_date, n.original_transaction_id, n.transaction_id, n.received_at, n.state, n.state_reason,
            n.signed_payload,
            n.transaction_original_transaction_id, n.transaction_product_id, n.transaction_environment,
            n.transaction_signed_date, n.transaction_json,
            n.renewal_original_transaction_id, n.renewal_product_id, n.renewal_environment, n.renewal_signed_date,
            n.renewal_json, n.compact_payload
        FROM notifications n
        """

    static let selectByUUID = select + "\nWHERE n.notification_uuid = ?"

    /// The query and arguments for `filter`; only the conditions present appear, so indexes apply.
    static func selectMatching(_ filter: NotificationFilter) -> (sql: String, arguments: [SQLValue]) {
        var conditions: [String] = []
        var arguments: [SQLValue] = []
        func add(_ condition: String, _ value: SQLValue?) {
            guard let value else { return }
            conditions.append(condition)
            arguments.append(value)
        }
        add("n.app_id = ?", filter.appId.map(SQLValue.text))
        // The literal second term lets SQLite use the partial index on rows not applied.
        add(
            filter.state == .applied ? "n.state = ?" : "n.state = ? AND n.state != 'applied'",
            filter.state.map { .text($0.rawValue) })
        add("n.notification_type = ?", filter.notificationType.map(SQLValue.text))
        add("n.original_transaction_id = ?", filter.originalTransactionId.map(SQLValue.text))
        add("n.received_at < ?", filter.before.map(SQLValue.integer))
        let whereClause = conditions.isEmpty ? "" : "\nWHERE " + conditions.joined(separator: " AND ")
        arguments.append(.integer(Int64(max(0, min(filter.limit, NotificationFilter.maximumLimit)))))
        arguments.append(.integer(Int64(max(0, filter.offset))))
        // Rows are inserted in the order they were received, so the rowid orders them newest first.
        return (select + whereClause + "\nORDER BY n.id DESC LIMIT ? OFFSET ?", arguments)
    }

    /// Decodes a row of `select`; a compact payload is expanded with the headers `connection` holds.
    static func record(_ row: [SQLValue], in connection: SQLiteConnection) throws(StoreError) -> NotificationRecord {
        func text(_ index: Int) -> String? { row[index].textValue }
        func integer(_ index: Int) -> Int64? { row[index].integerValue }
        guard row.count == 24 else {
            throw StoreError(.corrupt, "notification row has \(row.count) columns, expected 24")
        }
        guard let uuid = text(0), let state = text(10).flatMap(NotificationState.init(rawValue:)) else {
            throw StoreError(.corrupt, "notification \(row[0]) does not decode: state \(row[10])")
        }
        var transaction: TransactionSnapshot?
        if let transactionId = text(8), let json = text(17) {
            transaction = TransactionSnapshot(
                transactionId: transactionId, originalTransactionId: text(13), productId: text(14),
                environment: text(15), signedDate: integer(16), json: json)
        }
        var renewal: RenewalSnapshot?
        if let json = text(22) {
            renewal = RenewalSnapshot(
                originalTransactionId: text(18), productId: text(19), environment: text(20), signedDate: integer(21),
                json: json)
        }
        return NotificationRecord(
            notificationUUID: uuid, appId: text(1) ?? "", notificationType: text(2) ?? "", subtype: text(3),
            environment: text(4), bundleId: text(5), signedDate: integer(6), originalTransactionId: text(7),
            transactionId: text(8), receivedAt: integer(9) ?? 0, state: state, stateReason: text(11),
            signedPayload: try signedPayload(
                stored: text(12), compact: row[23], externals: externals(transactionJSON: text(17), renewalJSON: text(22)),
                uuid: uuid, in: connection),
            transaction: transaction, renewalInfo: renewal)
    }

    // MARK: - Compact payloads

    /// The payloads a row's compact payload may refer to instead of holding them (migration 16):
    /// the transaction's and the renewal info's decoded JSON, stored in `transaction_json` and
    /// `renewal_json`, whose base64url encodings are the nested JWS payload segments. Index 0 is
    /// the transaction, 1 the renewal info, when and where the row is written and read alike.
    static func externals(transactionJSON: String?, renewalJSON: String?) -> [Data?] {
        [transactionJSON.map { Data($0.utf8) }, renewalJSON.map { Data($0.utf8) }]
    }

    /// The `signedPayload` a row holds, expanding a compact one; a compact payload that does not
    /// expand is corruption, reported rather than answered with a wrong JWS.
    static func signedPayload(
        stored: String?, compact: SQLValue, externals: [Data?], uuid: String, in connection: SQLiteConnection
    ) throws(StoreError) -> String {
        guard case .blob(let body) = compact else { return stored ?? "" }
        let expanded = try JWSCompaction.expand(body, externals: externals) { (id) throws(StoreError) -> String? in
            try header(id, in: connection)
        }
        guard let expanded else {
            throw StoreError(.corrupt, "the stored payload of notification \(uuid) does not expand")
        }
        return expanded
    }

    static func header(_ sha256: String, in connection: SQLiteConnection) throws(StoreError) -> String? {
        try connection.query("SELECT header FROM jws_headers WHERE sha256 = ?", [.text(sha256)]).first?.first?.textValue
    }

    /// Keeps a header a compact payload names; one already stored is left alone.
    static func saveHeader(sha256: String, header: String, in connection: SQLiteConnection) throws(StoreError) {
        try connection.run(
            "INSERT INTO jws_headers (sha256, header) VALUES (?, ?) ON CONFLICT (sha256) DO NOTHING",
            [.text(sha256), .text(header)])
    }
}
