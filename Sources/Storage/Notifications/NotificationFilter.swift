/// Which stored notifications `Store.notifications(_:)` returns, newest first.
public struct NotificationFilter: Sendable {
    /// Only notifications for this app.
    public var appId: String?
    /// Only notifications in this state.
    public var state: NotificationState?
    /// Only notifications of this type (Apple's `notificationType`, e.g. `DID_RENEW`).
    public var notificationType: String?
    /// Only notifications about this subscription. No index serves it (migration 12): the store
    /// reads notifications newest first until it has a page, like for `notificationType`.
    public var originalTransactionId: String?
    /// Only notifications received strictly before this time (ms since 1970), for paging backwards.
    public var before: Int64?
    /// At most this many, capped at `NotificationFilter.maximumLimit`.
    public var limit: Int
    /// How many of the matching notifications, newest first, to skip: the next page starts there.
    public var offset: Int

    /// The largest page the store returns.
    public static let maximumLimit = 1000

    /// Creates a filter; every condition is optional and the page size defaults to 100.
    public init(
        appId: String? = nil,
        state: NotificationState? = nil,
        notificationType: String? = nil,
        originalTransactionId: String? = nil,
        before: Int64? = nil,
        limit: Int = 100,
        offset: Int = 0
    ) {
        self.appId = appId
        self.state = state
        self.notificationType = notificationType
        self.originalTransactionId = originalTransactionId
        self.before = before
        self.limit = limit
        self.offset = offset
    }
}
