/// A request your server signs and the app passes to StoreKit.
///
/// Every field of the conforming models is optional, even the ones Apple requires: a payload that
/// lacks a required field must still decode so that validation can name it with Apple's
/// `Null…Error`, instead of failing with an opaque `DecodingError`.
/// https://developer.apple.com/documentation/storekit/sending-advanced-commerce-api-requests-from-your-app
public protocol AdvancedCommerceInAppRequest: Codable, Hashable, Sendable {
    /// The `operation` value Apple requires for this request type.
    static var expectedOperation: InAppOperation { get }
    /// The problems Apple would reject this request for, found from the request alone.
    func validationErrors() -> [ValidationError]
}

extension AdvancedCommerceInAppRequest {
    /// The only `version` Apple accepts; it is a string, not a number.
    public static var currentVersion: String { "1" }
}
