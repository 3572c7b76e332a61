/// The step that applies a newly stored notification, inside the same write transaction.
///
/// The subscription reducer plugs in here, so that a notification, the subscription state it
/// changes, and the events it emits commit together or not at all.
public protocol NotificationHandOff: Sendable {
    /// Called by the writer inside the write transaction for each new (non-duplicate)
    /// notification, in commit order, just before its row is inserted with the state returned,
    /// and for an accepted copy of one stored held, just before the copy's row replaces the held
    /// one. It may run further SQL through `transaction` (the notification's own row is not
    /// there yet, or is still the held one).
    ///
    /// If it throws, everything it wrote is rolled back, and the notification is still stored, in
    /// state `failed` with the error as `stateReason` (the raw payload is never lost). To get
    /// there, the writer rolls back the whole batch and applies its items again one by one, so
    /// the other hand-offs of that batch run a second time: a hand-off must do nothing outside
    /// `transaction` (the ledger's does not).
    /// It runs on the writer thread, so it should be quick (every concurrent store waits for it), and it
    /// must not call the `Store` itself: the writer would wait for itself.
    func handOff(_ record: NotificationRecord, in transaction: WriteTransaction) throws -> NotificationState

    /// Called by the writer, where statements cost a round trip each, for each group of queued
    /// items of a write transaction before their first hand-off, with the notifications among
    /// them not known to be stored, in order (a copy stored meanwhile is handed off only to take
    /// up a held one). A
    /// hand-off that reads before it writes may read what they all need at once (one round trip,
    /// with the writer's own lookups) and return a hand-off for the rest of this transaction that
    /// uses those reads; the writer uses it until the next group's, goes back to `self` for the
    /// next transaction, and as soon as anything else (caller work) writes in this one. Throwing
    /// fails the transaction as a failed hand-off would.
    func prepared(for records: [NotificationRecord], in transaction: WriteTransaction) throws -> any NotificationHandOff
}

extension NotificationHandOff {
    /// Itself: nothing is read ahead.
    public func prepared(for records: [NotificationRecord], in transaction: WriteTransaction) throws
        -> any NotificationHandOff
    { self }
}

/// The hand-off used until the subscription logic exists: leaves every notification as it came.
public struct KeepReceived: NotificationHandOff {
    /// Creates the hand-off.
    public init() {}

    /// Returns `record.state` unchanged.
    public func handOff(_ record: NotificationRecord, in transaction: WriteTransaction) throws -> NotificationState {
        record.state
    }
}
