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
            signed_date, original_transaction_id, transaction_id, received_at, state, state_reason, payload,
            payload_dictionary, transaction_original_transaction_id, transaction_product_id, transaction_environment,
            transaction_signed_date, transaction_json, renewal_original_transaction_id, renewal_product_id,
            renewal_environment, renewal_signed_date, renewal_json)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (notification_uuid) DO NOTHING
        """

    /// - Parameter payload: `record.signedPayload` as the row keeps it (`StoredPayloads.compress`).
    static func insertArguments(_ record: NotificationRecord, payload: StoredPayload) -> [SQLValue] {
        let transaction = record.transaction
        let renewal = record.renewalInfo
        return [
            .text(record.notificationUUID), .text(record.appId), .text(record.notificationType),
            SQLValue(record.subtype), SQLValue(record.environment), SQLValue(record.bundleId),
            SQLValue(record.signedDate), SQLValue(record.originalTransactionId), SQLValue(record.transactionId),
            .integer(record.receivedAt), .text(record.state.rawValue), SQLValue(record.stateReason),
            .blob(payload.frame), SQLValue(payload.dictionary), SQLValue(transaction?.originalTransactionId),
            SQLValue(transaction?.productId),
            SQLValue(transaction?.environment), SQLValue(transaction?.signedDate), SQLValue(transaction?.json),
            SQLValue(renewal?.originalTransactionId), SQLValue(renewal?.productId), SQLValue(renewal?.environment),
            SQLValue(renewal?.signedDate), SQLValue(renewal?.json),
        ]
    }

    /// The state of the notification stored with this UUID (a row means a duplicate).
    static let storedState = "SELECT state FROM notifications WHERE notification_uuid = ?"
    /// Deletes the notification stored held under this UUID, for the copy that takes it up.
    static let deleteHeld = "DELETE FROM notifications WHERE notification_uuid = ? AND state = 'held'"

    // MARK: - Reading

    private static let select = """
        SELECT n.notification_uuid, n.app_id, n.notification_type, n.subtype, n.environment, n.bundle_id,
            n.signed_date, n.original_transaction_id, n.transaction_id, n.received_at, n.state, n.state_reason,
            n.payload, n.payload_dictionary,
            n.transaction_original_transaction_id, n.transaction_product_id, n.transaction_environment,
            n.transaction_signed_date, n.transaction_json,
            n.renewal_original_transaction_id, n.renewal_product_id, n.renewal_environment, n.renewal_signed_date,
            n.renewal_json
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

    /// Decodes a row of `select`; its payload is expanded with the dictionary it names, which
    /// `connection` holds.
    static func record(_ row: [SQLValue], in connection: any StatementRunner, dictionaries: PayloadDictionaries)
        throws(StoreError)
        -> NotificationRecord
    {
        func text(_ index: Int) -> String? { row[index].textValue }
        func integer(_ index: Int) -> Int64? { row[index].integerValue }
        guard row.count == 24 else {
            throw StoreError(.corrupt, "notification row has \(row.count) columns, expected 24")
        }
        guard let uuid = text(0), let state = text(10).flatMap(NotificationState.init(rawValue:)) else {
            throw StoreError(.corrupt, "notification \(row[0]) does not decode: state \(row[10])")
        }
        guard case .blob(let frame) = row[12] else {
            throw StoreError(.corrupt, "notification \(uuid) has no stored payload")
        }
        var transaction: TransactionSnapshot?
        if let transactionId = text(8), let json = text(18) {
            transaction = TransactionSnapshot(
                transactionId: transactionId, originalTransactionId: text(14), productId: text(15),
                environment: text(16), signedDate: integer(17), json: json)
        }
        var renewal: RenewalSnapshot?
        if let json = text(23) {
            renewal = RenewalSnapshot(
                originalTransactionId: text(19), productId: text(20), environment: text(21), signedDate: integer(22),
                json: json)
        }
        let signedPayload: String
        do {
            signedPayload = try dictionaries.expand(StoredPayload(frame: frame, dictionary: integer(13))) {
                (sql, arguments) throws(StoreError) in try connection.query(sql, arguments)
            }
        } catch {
            throw StoreError(error.code, "notification \(uuid): \(error.message)")
        }
        return NotificationRecord(
            notificationUUID: uuid, appId: text(1) ?? "", notificationType: text(2) ?? "", subtype: text(3),
            environment: text(4), bundleId: text(5), signedDate: integer(6), originalTransactionId: text(7),
            transactionId: text(8), receivedAt: integer(9) ?? 0, state: state, stateReason: text(11),
            signedPayload: signedPayload, transaction: transaction, renewalInfo: renewal)
    }
}
