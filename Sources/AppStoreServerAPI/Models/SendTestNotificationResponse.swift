import AppStore

/// The token of a test notification Apple is sending (Request a Test Notification).
///
/// https://developer.apple.com/documentation/appstoreserverapi/sendtestnotificationresponse
public struct SendTestNotificationResponse: Codable, Hashable, Sendable {
    public var testNotificationToken: String?

    public init(
        testNotificationToken: String? = nil
    ) {
        self.testNotificationToken = testNotificationToken
    }
}
