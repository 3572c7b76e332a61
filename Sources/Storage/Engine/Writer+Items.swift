import AppStore
import Foundation

// MARK: - Applying one item inside the open transaction

extension Writer {
    /// How the writes of one item can be undone if it fails.
    enum Isolation {
        /// In a savepoint of its own: a failure undoes only this item's writes, and a notification
        /// whose hand-off failed is stored as `failed`.
        case savepoint
        /// A notification is written straight into the shared transaction: any failure of it
        /// fails the transaction, which the writer rolls back to apply each item again alone, in
        /// a savepoint. A savepoint costs its item a copy of every page the item is the first to
        /// touch in it (SQLite's statement journal, 4 KiB each: the index leaves of a notification
        /// and its purchase), so the batch, where nothing fails but rarely, goes without.
        case transaction
    }

    /// Applies `item` inside the open transaction. Returns the item's outcome (nil for items
    /// nobody waits for); throws when the whole transaction must be given up: SQLite rolled it
    /// back on its own (disk-full or I/O errors), or a notification failed under `.transaction`.
    /// Rejects and caller work always run in a savepoint.
    func apply(_ item: WriteItem, isolation: Isolation) throws(StoreError) -> Result<StoreOutcome, StoreError>? {
        if case .store(let write, _) = item, isolation == .transaction {
            return .success(try storeNotification(write, inSavepoint: false))
        }
        var outcome: Result<StoreOutcome, StoreError>?
        do throws(StoreError) {
            switch item {
            case .store(let write, _):
                outcome = .success(try storeNotification(write, inSavepoint: true))
            case .rejects(let pending, _):
                let batch = pending.take()
                if !batch.isEmpty {
                    do throws(StoreError) {
                        try savepoint("item") { () throws(StoreError) in try pending.write(batch, in: connection) }
                    } catch {
                        pending.restore(batch)
                        throw error
                    }
                    rejectsInTransaction.append((pending, batch))
                }
            case .work(let work, _):
                // Caller work may write rows the prepared hand-off read ahead, and take up or
                // move the held notifications the group's lookup found.
                preparedHandOff = nil
                heldUUIDs = nil
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
        try connection.run("SAVEPOINT \(name)", [])
        do throws(StoreError) {
            let value = try body()
            try connection.run("RELEASE \(name)", [])
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
            try connection.run("ROLLBACK TO \(name)", [])
            try connection.run("RELEASE \(name)", [])
        } catch {
            transactionIsSound = false
        }
    }

    // MARK: - Notifications

    /// Stores a new notification once, with the state its hand-off gives it; `inSavepoint`, in a
    /// savepoint of its own (`Isolation`).
    ///
    /// The hand-off runs before the row is inserted, so the row is written once with its final
    /// state: an `UPDATE` afterwards would make SQLite rewrite the whole record, raw payload and
    /// its overflow pages included, doubling what every notification costs the disk. If the
    /// hand-off throws in a savepoint, rolling back to it undoes the hand-off's writes, and the
    /// notification is stored as `failed` with the error as the reason; without one, the error
    /// fails the transaction.
    private func storeNotification(_ write: NotificationWrite, inSavepoint: Bool) throws(StoreError) -> StoreOutcome {
        let record = write.record
        let store = { () throws(StoreError) -> StoreOutcome in
            // Nil when no notification is stored under the UUID, else whether it is stored held.
            let storedHeld: Bool?
            if !inSavepoint, self.storedUUIDs != nil {
                // Looked up with the others of its group; one stored earlier in this transaction
                // (a copy in the same batch) was added when it was.
                if self.storedUUIDs?.insert(record.notificationUUID).inserted == true {
                    storedHeld = nil
                } else if let known = self.heldUUIDs {
                    storedHeld = known.contains(record.notificationUUID)
                } else {
                    // Caller work since the lookup may have taken up or moved it: asked again.
                    storedHeld = try write.storedState(in: self.connection) == .held
                }
            } else {
                storedHeld = try write.storedState(in: self.connection).map { $0 == .held }
            }
            // A copy is a duplicate, unless the stored one is held and this copy is accepted
            // (`received`: posted to an app whose checks it passes, after it was held under
            // another app's URL or before a configuration fix). Then the copy takes the held
            // one's place and is applied, its row what was applied: the held row, checked only
            // against another app's roots, may hold other bytes under the same UUID, which
            // `replay` and `notifications show` would otherwise read.
            if let storedHeld, !storedHeld || record.state != .received { return .duplicate }
            let takesUpHeld = storedHeld != nil
            var final = record
            (final.state, final.stateReason) = try self.runHandOff(record, inSavepoint: inSavepoint)
            if takesUpHeld {
                // After the hand-off: one that throws in a savepoint rolls back to before this,
                // and the copy is stored failed in the held one's place all the same.
                guard try write.deleteHeld(in: self.connection) else {
                    throw StoreError(
                        .corrupt, "notification \(record.notificationUUID) left the held state during its own hand-off")
                }
                self.heldUUIDs?.remove(record.notificationUUID)
            }
            // Outside a savepoint, sent ahead unchecked: the UUID was absent a moment ago in the
            // shared transaction (or its held row is gone), and only this writer, holding the
            // write lock, inserts notifications.
            let inserted = try write.insert(final, sentAhead: !inSavepoint, in: self.connection)
            guard inserted else {
                throw StoreError(.corrupt, "notification \(record.notificationUUID) appeared during its own hand-off")
            }
            if final.state == .held { self.heldUUIDs?.insert(record.notificationUUID) }
            return takesUpHeld ? .takenUp : .stored
        }
        return inSavepoint ? try savepoint("item", store) : try store()
    }

    /// Lends the transaction to the hand-off and returns the notification's state and reason. When
    /// the hand-off throws in a savepoint, its writes are rolled back (the `item` savepoint stays
    /// open) and the state is `failed`; without one, the error fails the transaction.
    private func runHandOff(_ record: NotificationRecord, inSavepoint: Bool) throws(StoreError) -> (NotificationState, String?) {
        let transaction = WriteTransaction(connection: connection, anonymousIds: anonymousIds)
        defer { takeBack(transaction) }
        do {
            let state = try (preparedHandOff ?? handOff).handOff(record, in: transaction)
            // In a savepoint, a write the hand-off sent ahead must fail it here, not a later item.
            if inSavepoint { try connection.flushSent() }
            // Transaction control is refused, so this only guards against a way around the check.
            guard connection.isInTransaction else {
                throw StoreError(.invalid, "the hand-off of \(record.notificationUUID) ended the writer's transaction")
            }
            return (state, record.stateReason)
        } catch {
            guard connection.isInTransaction, transactionIsSound else {
                throw (error as? StoreError) ?? StoreError(.io, "the write transaction ended during the hand-off")
            }
            guard inSavepoint else {
                throw (error as? StoreError) ?? StoreError(.invalid, "hand-off of \(record.notificationUUID) failed: \(error)")
            }
            try connection.run("ROLLBACK TO item", [])
            return (.failed, String("hand-off failed: \(error)".prefix(Self.maximumReasonLength)))
        }
    }

    private static let maximumReasonLength = 2000

    /// Ends the loan of `transaction`, keeping what it says for the commit (`outboxApps`).
    private func takeBack(_ transaction: WriteTransaction) {
        outboxApps.formUnion(transaction.outboxApps)
        eventsWritten = eventsWritten || transaction.wroteEvents
        transaction.invalidate()
    }

    /// Runs caller work with the transaction lent for the call; its error fails only this item.
    private func perform(_ work: WriteWork) throws(StoreError) -> StoreOutcome {
        let transaction = WriteTransaction(connection: connection, anonymousIds: anonymousIds)
        defer { takeBack(transaction) }
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

    /// Trims the reject log once per transaction whose items include rejects (`PendingRejects.trim`).
    func trimRejects(after items: [WriteItem]) throws(StoreError) {
        for case .rejects(let pending, _) in items {
            try pending.trim(in: connection)
            return
        }
    }
}
