import AppStore

/// What Get Notification History looks for: a date range and at most one filter.
///
/// https://developer.apple.com/documentation/appstoreserverapi/notificationhistoryrequest
public struct NotificationHistoryRequest: Codable, Hashable, Sendable {
    /// UNIX ms, inclusive; required.
    @Milliseconds public var startDate: Int64?
    /// UNIX ms, exclusive; required.
    @Milliseconds public var endDate: Int64?
    public var notificationType: NotificationTypeV2?
    /// Only with `notificationType`.
    public var notificationSubtype: Subtype?
    /// Not with `notificationType`.
    public var transactionId: String?
    /// Only notifications Apple could not deliver.
    public var onlyFailures: Bool?

    public init(
        startDate: Int64? = nil,
        endDate: Int64? = nil,
        notificationType: NotificationTypeV2? = nil,
        notificationSubtype: Subtype? = nil,
        transactionId: String? = nil,
        onlyFailures: Bool? = nil
    ) {
        self.startDate = startDate
        self.endDate = endDate
        self.notificationType = notificationType
        self.notificationSubtype = notificationSubtype
        self.transactionId = transactionId
        self.onlyFailures = onlyFailures
    }
}
