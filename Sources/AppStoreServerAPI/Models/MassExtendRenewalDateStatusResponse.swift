import AppStore

/// How far a mass extension has come (Get Status of Subscription Renewal Date Extensions).
///
/// https://developer.apple.com/documentation/appstoreserverapi/massextendrenewaldatestatusresponse
public struct MassExtendRenewalDateStatusResponse: Codable, Hashable, Sendable {
    public var requestIdentifier: String?
    public var complete: Bool?
    /// UNIX ms.
    @Milliseconds public var completeDate: Int64?
    public var succeededCount: Int64?
    public var failedCount: Int64?

    public init(
        requestIdentifier: String? = nil,
        complete: Bool? = nil,
        completeDate: Int64? = nil,
        succeededCount: Int64? = nil,
        failedCount: Int64? = nil
    ) {
        self.requestIdentifier = requestIdentifier
        self.complete = complete
        self.completeDate = completeDate
        self.succeededCount = succeededCount
        self.failedCount = failedCount
    }
}
