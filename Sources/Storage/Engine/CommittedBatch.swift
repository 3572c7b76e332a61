/// What one durable commit held, told to the store's `onCommit`.
public struct CommittedBatch: Sendable, Equatable {
    /// How many queued items the transaction held.
    public var items: Int
    /// Whether any of them wrote the outbox: made deliveries, recorded an attempt's outcome or
    /// made an event due again (`WriteTransaction.noteOutboxChanged`). A commit that only
    /// claimed deliveries did not: a webhook worker woken by its own claim would claim again at
    /// once, and on PostgreSQL take the cluster-wide write lock in a loop.
    public var changedOutbox: Bool

    public init(items: Int, changedOutbox: Bool) {
        self.items = items
        self.changedOutbox = changedOutbox
    }
}
