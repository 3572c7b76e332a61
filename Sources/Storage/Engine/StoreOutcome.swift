/// What `Store.store(_:)` did with a notification once its commit returned.
public enum StoreOutcome: Sendable, Equatable {
    /// The notification was inserted and is durably committed.
    case stored
    /// A notification with the same `notificationUUID` was already stored; nothing changed.
    case duplicate
    /// The notification was stored held under another app (or before a configuration fix), and
    /// this copy, accepted, took its place and was applied; durably committed.
    case takenUp
}
