// MARK: - Applying one item inside the open transaction

extension Writer {
    /// Applies `item` inside the open transaction, in a savepoint so that its failure undoes only its
    /// own writes. Returns the item's outcome (nil for items nobody waits for); throws only when the
    /// whole transaction is gone (SQLite rolls back on its own after disk-full or I/O errors).
    func apply(_ item: WriteItem) throws(StoreError) -> Result<StoreOutcome, StoreError>? {
        var outcome: Result<StoreOutcome, StoreError>?
        do throws(StoreError) {
            switch item {
            case .store(let record, _):
                outcome = .success(try savepoint("item") { () throws(StoreError) in try store(record) })
            case .reject(let reject):
                try savepoint("item") { () throws(StoreError) in try record(reject) }
            case .work(let work, _):
                outcome = .success(try savepoint("item") { () throws(StoreError) in try perform(work) })
            case .healthCheck:
                break
            }
        } catch {
            outcome = .failure(error)
        }
        guard connection.isInTransaction, transactionIsSound else {
            if case .failure(let error) = outcome { throw error }
            throw StoreError(.io, "the write transaction ended unexpectedly")
        }
        return outcome
    }

    /// Runs `body` between `SAVEPOINT name` and `RELEASE name`, rolling back to the savepoint if it throws.
    @discardableResult
    func savepoint<T>(_ name: String, _ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try connection.run("SAVEPOINT \(name)")
        do throws(StoreError) {
            let value = try body()
            try connection.run("RELEASE \(name)")
            return value
        } catch {
            undo(to: name)
            throw error
        }
    }

    /// Rolls back to and releases savepoint `name`, or marks the transaction unsound if that fails.
    private func undo(to name: String) {
        guard connection.isInTransaction else { return }
        do throws(StoreError) {
            try connection.run("ROLLBACK TO \(name)")
            try connection.run("RELEASE \(name)")
        } catch {
            transactionIsSound = false
        }
    }

    // MARK: - Notifications

    private func store(_ record: NotificationRecord) throws(StoreError) -> StoreOutcome {
        let inserted = try connection.run(NotificationSQL.insert, NotificationSQL.insertArguments(record))
        guard inserted == 1 else { return .duplicate }
        try runHandOff(record, rowID: connection.lastInsertRowID)
        return .stored
    }

    /// Lends the transaction to the hand-off in a nested savepoint. If it throws, its writes are undone
    /// and the notification stays stored as `failed`, with the error as the reason.
    private func runHandOff(_ record: NotificationRecord, rowID: Int64) throws(StoreError) {
        let transaction = WriteTransaction(connection: connection)
        defer { transaction.invalidate() }
        try connection.run("SAVEPOINT hand_off")
        let state: NotificationState
        do {
            state = try handOff.handOff(record, in: transaction)
            try connection.run("RELEASE hand_off")
        } catch {
            undo(to: "hand_off")
            guard connection.isInTransaction, transactionIsSound else {
                throw (error as? StoreError) ?? StoreError(.io, "the write transaction ended during the hand-off")
            }
            let reason = String("hand-off failed: \(error)".prefix(Self.maximumReasonLength))
            try connection.run(
                NotificationSQL.updateState,
                [.text(NotificationState.failed.rawValue), .text(reason), .integer(rowID)])
            return
        }
        if state != record.state {
            try connection.run(NotificationSQL.updateStateOnly, [.text(state.rawValue), .integer(rowID)])
        }
    }

    private static let maximumReasonLength = 2000

    /// Runs caller work with the transaction lent for the call; its error fails only this item.
    private func perform(_ work: WriteWork) throws(StoreError) -> StoreOutcome {
        let transaction = WriteTransaction(connection: connection)
        defer { transaction.invalidate() }
        do {
            try work.body(transaction)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.invalid, "\(error)")
        }
        return .stored
    }

    // MARK: - Rejects

    private func record(_ reject: Reject) throws(StoreError) {
        try connection.run(
            "INSERT INTO rejects (app_id, status, reason, at) VALUES (?, ?, ?, ?)",
            [.text(reject.appId), .text(reject.status), .text(reject.reason), .integer(reject.at)])
        try connection.run(
            "INSERT INTO reject_counts (status, count) VALUES (?, 1) ON CONFLICT (status) DO UPDATE SET count = count + 1",
            [.text(reject.status)])
    }

    /// Keeps the newest `RejectLog.recentLimit` rejects; once per transaction, not per reject.
    func trimRejects() throws(StoreError) {
        try connection.run(
            "DELETE FROM rejects WHERE id <= (SELECT id FROM rejects ORDER BY id DESC LIMIT 1 OFFSET ?)",
            [.integer(Int64(RejectLog.recentLimit))])
    }
}
