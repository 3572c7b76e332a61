import Subscriptions

/// The held events of a purchase nobody has claimed, beyond `inlineLimit`, as rows of
/// `held_events` (migration 14): each written once, read back only when the purchase is claimed.
///
/// A purchase's history is read and written whole with every input about it, so held events kept
/// there would make each notification of an unclaimed subscription cost more than the one before.
/// The journal keeps the count of those stored apart (`PurchaseJournal.storedHeldEventCount`), and
/// `LedgerInputs.apply` restores them before an input that claims the purchase is applied for good.
/// Rows written before migration 14 carry their held events in `history`, and move them here the
/// next time they are written.
public enum HeldEventRows {
    /// Held events a history keeps inline: a new purchase (most under load) holds one and writes
    /// no row; the second one moves both here.
    public static let inlineLimit = 1

    /// Puts the held events stored apart back into `journal`, oldest first; returns how many.
    public static func restore(_ journal: inout PurchaseJournal, key: String, appId: String, from rows: some RowReader) throws
        -> Int
    {
        guard let count = journal.storedHeldEventCount, count > 0 else { return 0 }
        let found = try rows.query(
            "SELECT seq, json FROM held_events WHERE app_id = ? AND purchase_key = ? ORDER BY seq", [.text(appId), .text(key)])
        // Rows are numbered from 0 with no gap: new ones are numbered from the count.
        guard found.count == count, found.enumerated().allSatisfy({ $0.element[0].integerValue == Int64($0.offset) }) else {
            throw StoreError(
                .corrupt, "purchase \(key) keeps \(count) held events apart, numbered 0 to \(count - 1), but the rows differ")
        }
        let events = try found.map { (row) throws -> Event in
            guard let json = row[1].textValue else { throw StoreError(.corrupt, "a held event of \(key) has no JSON") }
            return try LedgerRows.decode(Event.self, json)
        }
        journal = journal.restoringHeldEvents(events)
        return count
    }

    /// Brings `held_events` in line with `journal` after an input, and returns the journal to keep
    /// in `purchases.history`.
    ///
    /// - Parameter restored: how many of `journal.heldEvents`, from the front, `restore` read from
    ///   rows. Released (the purchase was claimed), their rows are deleted; still held, they stay.
    ///   Held events beyond `inlineLimit` that are in no row yet are written, after the stored ones.
    public static func save(
        _ journal: PurchaseJournal, key: String, restored: Int, appId: String, in transaction: WriteTransaction
    ) throws -> PurchaseJournal {
        var journal = journal
        if restored > 0 {
            if journal.heldEvents.isEmpty {
                try transaction.write(
                    "DELETE FROM held_events WHERE app_id = ? AND purchase_key = ?", [.text(appId), .text(key)])
                return journal
            }
            guard journal.heldEvents.count >= restored else {
                throw StoreError(.invalid, "purchase \(key) lost some of its \(restored) restored held events")
            }
            journal = journal.storingHeldEventsApart(first: restored)
        } else if journal.storedHeldEventCount != nil, journal.ownerAppUserId != nil {
            // `LedgerInputs.apply` restores them before a claim: reaching here would lose them.
            throw StoreError(.invalid, "purchase \(key) was claimed without the held events kept apart")
        }
        guard journal.heldEvents.count > inlineLimit else { return journal }
        let first = journal.storedHeldEventCount ?? 0
        for (offset, event) in journal.heldEvents.enumerated() {
            try transaction.write(
                "INSERT INTO held_events (app_id, purchase_key, seq, json) VALUES (?, ?, ?, ?)",
                [.text(appId), .text(key), .integer(Int64(first + offset)), .text(try LedgerRows.encode(event))])
        }
        return journal.storingHeldEventsApart()
    }
}
