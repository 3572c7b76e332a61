/// What one durable commit held, told to the store's `onCommit`.
public struct CommittedBatch: Sendable, Equatable {
    /// How many queued items the transaction held.
    public var items: Int
    /// The apps whose outbox any of them wrote: made deliveries, recorded an attempt's outcome
    /// or made an event due again (`WriteTransaction.noteOutboxChanged`). A commit that only
    /// claimed deliveries wrote none: a webhook worker woken by its own claim would claim again
    /// at once, and on PostgreSQL take the cluster-wide write lock in a loop. Only these apps'
    /// workers are woken: another app's has nothing new to claim.
    public var outboxApps: Set<String>
    /// Whether any of them wrote the outbox.
    public var changedOutbox: Bool { !outboxApps.isEmpty }
    /// Whether the item was committed on its own after the batch it came in failed (one bad item,
    /// or a commit that could not be made): the writer's fallback.
    public var retriedAlone: Bool

    public init(items: Int, outboxApps: Set<String> = [], retriedAlone: Bool = false) {
        self.items = items
        self.outboxApps = outboxApps
        self.retriedAlone = retriedAlone
    }
}
