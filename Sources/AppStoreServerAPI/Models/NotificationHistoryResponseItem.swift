import AppStore

/// One notification Apple sent, with its delivery attempts.
///
/// https://developer.apple.com/documentation/appstoreserverapi/notificationhistoryresponseitem
public struct NotificationHistoryResponseItem: Codable, Hashable, Sendable {
    /// The notification as Apple posts it.
    public var signedPayload: String?
    public var sendAttempts: [SendAttemptItem]?

    public init(
        signedPayload: String? = nil,
        sendAttempts: [SendAttemptItem]? = nil
    ) {
        self.signedPayload = signedPayload
        self.sendAttempts = sendAttempts
    }
}
