import AppStore

/// One attempt of Apple's to deliver a notification.
///
/// https://developer.apple.com/documentation/appstoreserverapi/sendattemptitem
public struct SendAttemptItem: Codable, Hashable, Sendable {
    /// UNIX ms.
    @Milliseconds public var attemptDate: Int64?
    public var sendAttemptResult: SendAttemptResult?

    public init(
        attemptDate: Int64? = nil,
        sendAttemptResult: SendAttemptResult? = nil
    ) {
        self.attemptDate = attemptDate
        self.sendAttemptResult = sendAttemptResult
    }
}
