import AppStore

/// An extension of the renewal date of every active subscriber of a product.
///
/// https://developer.apple.com/documentation/appstoreserverapi/massextendrenewaldaterequest
public struct MassExtendRenewalDateRequest: Codable, Hashable, Sendable {
    /// 1 to 90.
    public var extendByDays: Int32?
    public var extendReasonCode: ExtendReasonCode?
    /// A UUID you choose.
    public var requestIdentifier: String?
    /// ISO 3166-1 alpha-3; all storefronts when absent.
    public var storefrontCountryCodes: [String]?
    public var productId: String?

    public init(
        extendByDays: Int32? = nil,
        extendReasonCode: ExtendReasonCode? = nil,
        requestIdentifier: String? = nil,
        storefrontCountryCodes: [String]? = nil,
        productId: String? = nil
    ) {
        self.extendByDays = extendByDays
        self.extendReasonCode = extendReasonCode
        self.requestIdentifier = requestIdentifier
        self.storefrontCountryCodes = storefrontCountryCodes
        self.productId = productId
    }
}
