/// The SQL that stores and reads notifications and their snapshots, shared by the writer and readers.
enum NotificationSQL {
    // MARK: - Writing

    /// Inserts a notification unless its UUID is already stored; `changes() == 0` means duplicate.
    ///
    /// `ON CONFLICT (notification_uuid) DO NOTHING` rather than `INSERT OR IGNORE`: the latter would
    /// also swallow NOT NULL and CHECK violations and report them as duplicates.
    static let insert = """
        INSERT INTO notifications (notification_uuid, app_id, notification_type, subtype, environment, bundle_id,
            signed_date, original_transaction_id, transaction_id, received_at, state, state_reason, signed_payload)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (notification_uuid) DO NOTHING
        """

    static func insertArguments(_ record: NotificationRecord) -> [SQLValue] {
        [
            .text(record.notificationUUID), .text(record.appId), .text(record.notificationType),
            SQLValue(record.subtype), SQLValue(record.environment), SQLValue(record.bundleId),
            SQLValue(record.signedDate), SQLValue(record.originalTransactionId), SQLValue(record.transactionId),
            .integer(record.receivedAt), .text(record.state.rawValue), SQLValue(record.stateReason),
            .text(record.signedPayload),
        ]
    }

    /// Keeps one row per transaction: the snapshot with the newest `signed_date` wins (ties: the later write).
    static let upsertTransaction = """
        INSERT INTO transactions (transaction_id, original_transaction_id, product_id, environment, signed_date, json,
            notification_uuid)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (transaction_id) DO UPDATE SET
            original_transaction_id = excluded.original_transaction_id,
            product_id = excluded.product_id,
            environment = excluded.environment,
            signed_date = excluded.signed_date,
            json = excluded.json,
            notification_uuid = excluded.notification_uuid
        WHERE transactions.signed_date IS NULL OR excluded.signed_date >= transactions.signed_date
        """

    static func upsertTransactionArguments(_ snapshot: TransactionSnapshot, notificationUUID: String) -> [SQLValue] {
        [
            .text(snapshot.transactionId), SQLValue(snapshot.originalTransactionId), SQLValue(snapshot.productId),
            SQLValue(snapshot.environment), SQLValue(snapshot.signedDate), .text(snapshot.json),
            .text(notificationUUID),
        ]
    }

    static let insertRenewal = """
        INSERT INTO renewal_snapshots (notification_uuid, original_transaction_id, product_id, environment, signed_date,
            json)
        VALUES (?, ?, ?, ?, ?, ?)
        """

    static func insertRenewalArguments(_ snapshot: RenewalSnapshot, notificationUUID: String) -> [SQLValue] {
        [
            .text(notificationUUID), SQLValue(snapshot.originalTransactionId), SQLValue(snapshot.productId),
            SQLValue(snapshot.environment), SQLValue(snapshot.signedDate), .text(snapshot.json),
        ]
    }

    static let updateState = "UPDATE notifications SET state = ?, state_reason = ? WHERE id = ?"

    /// Leaves `state_reason` as the hand-off may have written it.
    static let updateStateOnly = "UPDATE notifications SET state = ? WHERE id = ?"

    // MARK: - Reading

    private static let select = """
        SELECT n.notification_uuid, n.app_id, n.notification_type, n.subtype, n.environment, n.bundle_id,
            n.signed_date, n.original_transaction_id, n.transaction_id, n.received_at, n.state, n.state_reason,
            n.signed_payload,
            t.transaction_id, t.original_transaction_id, t.product_id, t.environment, t.signed_date, t.json,
            r.id, r.original_transaction_id, r.product_id, r.environment, r.signed_date, r.json
        FROM notifications n
        LEFT JOIN transactions t ON t.transaction_id = n.transaction_id
        LEFT JOIN renewal_snapshots r ON r.notification_uuid = n.notification_uuid
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
        add("n.state = ?", filter.state.map { .text($0.rawValue) })
        add("n.notification_type = ?", filter.notificationType.map(SQLValue.text))
        add("n.original_transaction_id = ?", filter.originalTransactionId.map(SQLValue.text))
        add("n.received_at < ?", filter.before.map(SQLValue.integer))
        let whereClause = conditions.isEmpty ? "" : "\nWHERE " + conditions.joined(separator: " AND ")
        arguments.append(.integer(Int64(max(0, min(filter.limit, NotificationFilter.maximumLimit)))))
        return (select + whereClause + "\nORDER BY n.received_at DESC, n.id DESC LIMIT ?", arguments)
    }

    /// Decodes a row of `select`.
    static func record(_ row: [SQLValue]) throws(StoreError) -> NotificationRecord {
        func text(_ index: Int) -> String? { row[index].textValue }
        func integer(_ index: Int) -> Int64? { row[index].integerValue }
        guard row.count == 25 else {
            throw StoreError(.corrupt, "notification row has \(row.count) columns, expected 25")
        }
        guard let uuid = text(0), let state = text(10).flatMap(NotificationState.init(rawValue:)) else {
            throw StoreError(.corrupt, "notification \(row[0]) does not decode: state \(row[10])")
        }
        var transaction: TransactionSnapshot?
        if let transactionId = text(13) {
            transaction = TransactionSnapshot(
                transactionId: transactionId, originalTransactionId: text(14), productId: text(15),
                environment: text(16), signedDate: integer(17), json: text(18) ?? "")
        }
        var renewal: RenewalSnapshot?
        if integer(19) != nil {
            renewal = RenewalSnapshot(
                originalTransactionId: text(20), productId: text(21), environment: text(22), signedDate: integer(23),
                json: text(24) ?? "")
        }
        return NotificationRecord(
            notificationUUID: uuid, appId: text(1) ?? "", notificationType: text(2) ?? "", subtype: text(3),
            environment: text(4), bundleId: text(5), signedDate: integer(6), originalTransactionId: text(7),
            transactionId: text(8), receivedAt: integer(9) ?? 0, state: state, stateReason: text(11),
            signedPayload: text(12) ?? "", transaction: transaction, renewalInfo: renewal)
    }
}
