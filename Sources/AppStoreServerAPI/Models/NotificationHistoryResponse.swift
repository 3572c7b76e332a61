import AppStore

/// A page of notifications Apple sent (Get Notification History).
///
/// https://developer.apple.com/documentation/appstoreserverapi/notificationhistoryresponse
public struct NotificationHistoryResponse: Codable, Hashable, Sendable {
    /// Pass back to get the next page.
    public var paginationToken: String?
    public var hasMore: Bool?
    /// At most 20.
    public var notificationHistory: [NotificationHistoryResponseItem]?

    public init(
        paginationToken: String? = nil,
        hasMore: Bool? = nil,
        notificationHistory: [NotificationHistoryResponseItem]? = nil
    ) {
        self.paginationToken = paginationToken
        self.hasMore = hasMore
        self.notificationHistory = notificationHistory
    }
}
