import AppStore

/// A test notification and how its delivery went (Get Test Notification Status).
///
/// https://developer.apple.com/documentation/appstoreserverapi/checktestnotificationresponse
public struct CheckTestNotificationResponse: Codable, Hashable, Sendable {
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
