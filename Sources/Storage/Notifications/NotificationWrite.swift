/// A notification as the writer stores it: the record, its payload as the row keeps it
/// (`StoredPayloads.compress`, on the caller's thread), and the statements of its row. The
/// writer looks it up and inserts it through these, so the engine names no table.
struct NotificationWrite: Sendable {
    let record: NotificationRecord
    let payload: StoredPayload

    var uuid: String { record.notificationUUID }

    /// Sends the lookup whose answer has a row, the stored state, when the notification is
    /// already stored, for an engine that sends statements together (`WriterConnection.sendStoredLookup`).
    func sendStoredQuery(on connection: any StatementRunner) throws(StoreError) -> PendingRows {
        try connection.sendQuery(NotificationSQL.storedState, [.text(uuid)])
    }

    /// The state of the notification stored under its UUID; nil when none is.
    func storedState(in connection: any StatementRunner) throws(StoreError) -> NotificationState? {
        try connection.query(NotificationSQL.storedState, [.text(uuid)]).first?.first?.textValue
            .flatMap(NotificationState.init(rawValue:))
    }

    /// Deletes the row stored held under its UUID, for this copy's own; false when none is held.
    func deleteHeld(in connection: any StatementRunner) throws(StoreError) -> Bool {
        try connection.run(NotificationSQL.deleteHeld, [.text(uuid)]) == 1
    }

    /// Inserts the row as `final` (the record with the state its hand-off gave it), timed as the
    /// `notification` phase of the write profile. `sentAhead`: sent without waiting for its
    /// answer, where the caller knows the UUID is absent and only it inserts. Returns whether a
    /// row was inserted (true when sent ahead).
    func insert(_ final: NotificationRecord, sentAhead: Bool, in connection: any StatementRunner) throws(StoreError) -> Bool {
        let start = WriteProfile.enabled ? ContinuousClock.now : nil
        defer { if let start { WriteProfile.add(.notification, start.duration(to: .now)) } }
        let arguments = NotificationSQL.insertArguments(final, payload: payload)
        guard !sentAhead else {
            try connection.send(NotificationSQL.insert, arguments)
            return true
        }
        return try connection.run(NotificationSQL.insert, arguments) == 1
    }
}

extension NotificationWrite {
    /// `record` with its payload compressed by `payloads`, on the caller's thread.
    init(_ record: NotificationRecord, compressingWith payloads: StoredPayloads) {
        self.init(record: record, payload: payloads.compress(record.signedPayload))
    }
}
