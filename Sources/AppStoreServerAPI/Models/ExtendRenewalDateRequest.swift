import AppStore

/// How far to extend one subscription's renewal date, and why.
///
/// https://developer.apple.com/documentation/appstoreserverapi/extendrenewaldaterequest
public struct ExtendRenewalDateRequest: Codable, Hashable, Sendable {
    /// 1 to 90.
    public var extendByDays: Int32?
    public var extendReasonCode: ExtendReasonCode?
    /// A UUID you choose, at most 128 characters.
    public var requestIdentifier: String?

    public init(
        extendByDays: Int32? = nil,
        extendReasonCode: ExtendReasonCode? = nil,
        requestIdentifier: String? = nil
    ) {
        self.extendByDays = extendByDays
        self.extendReasonCode = extendReasonCode
        self.requestIdentifier = requestIdentifier
    }
}
