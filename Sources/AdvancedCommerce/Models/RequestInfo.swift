/// Identifies one in-app request and, optionally, its customer and the subscription state it was built from.
///
/// https://developer.apple.com/documentation/advancedcommerceapi/requestinfo
public struct RequestInfo: Codable, Hashable, Sendable {
    /// Required. A UUID unique per request; reuse it only to retry a request that timed out.
    public var requestReferenceId: String?
    /// A UUID Apple returns in the transaction; must match the app's `appAccountToken(_:)` option if both are set.
    public var appAccountToken: String?
    /// Copied from the latest renewal info's `advancedCommerceInfo.consistencyToken`; guards against concurrent changes.
    public var consistencyToken: String?

    public init(requestReferenceId: String? = nil, appAccountToken: String? = nil, consistencyToken: String? = nil) {
        self.requestReferenceId = requestReferenceId
        self.appAccountToken = appAccountToken
        self.consistencyToken = consistencyToken
    }
}
