import AppStore

/// The outcome of extending one subscription's renewal date.
///
/// https://developer.apple.com/documentation/appstoreserverapi/extendrenewaldateresponse
public struct ExtendRenewalDateResponse: Codable, Hashable, Sendable {
    public var originalTransactionId: String?
    public var webOrderLineItemId: String?
    public var success: Bool?
    /// The new renewal date, UNIX ms.
    @Milliseconds public var effectiveDate: Int64?

    public init(
        originalTransactionId: String? = nil,
        webOrderLineItemId: String? = nil,
        success: Bool? = nil,
        effectiveDate: Int64? = nil
    ) {
        self.originalTransactionId = originalTransactionId
        self.webOrderLineItemId = webOrderLineItemId
        self.success = success
        self.effectiveDate = effectiveDate
    }
}
