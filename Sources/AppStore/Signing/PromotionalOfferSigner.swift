import Crypto
import Foundation

/// Signs promotional offers with the app's In-App Purchase key, as StoreKit checks them when a
/// customer buys with one (`Product.PurchaseOption.promotionalOffer(offerID:keyID:nonce:
/// signature:timestamp:)`, StoreKit 1's `SKPaymentDiscount`).
///
/// The signature is ECDSA P-256 over SHA-256 of the offer's fields joined by U+2063 (invisible
/// separator): bundle id, key id, product id, offer id, application username (lowercased), nonce
/// (lowercased) and the timestamp in milliseconds; DER, in standard Base64. StoreKit takes it for
/// 24 hours from the timestamp, once per nonce.
/// https://developer.apple.com/documentation/storekit/generating-a-signature-for-promotional-offers
public struct PromotionalOfferSigner: Sendable {
    public let keyId: String
    public let bundleId: String
    private let key: ECPrivateKey

    /// What one signature carries besides its bytes.
    public struct Signature: Equatable, Sendable {
        /// Base64 of the DER signature.
        public var signature: String
        public var nonce: UUID
        public var timestampMs: Int64
    }

    /// - Parameter key: a P-256 key (App Store Connect's In-App Purchase keys are).
    public init(key: ECPrivateKey, keyId: String, bundleId: String) {
        self.key = key
        self.keyId = keyId
        self.bundleId = bundleId
    }

    /// The bytes signed for an offer: the fields in Apple's order, joined by U+2063.
    public func payload(
        productId: String, offerId: String, applicationUsername: String, nonce: UUID, timestampMs: Int64
    ) -> Data {
        let fields = [
            bundleId, keyId, productId, offerId, applicationUsername.lowercased(), nonce.uuidString.lowercased(),
            String(timestampMs),
        ]
        return Data(fields.joined(separator: "\u{2063}").utf8)
    }

    /// Signs `offerId` of `productId` for the purchase whose application username (StoreKit 1)
    /// or app account token (StoreKit 2) is `applicationUsername` (empty when it has none).
    public func sign(
        productId: String, offerId: String, applicationUsername: String, at timestampMs: Int64, nonce: UUID = UUID()
    ) throws -> Signature {
        let message = payload(
            productId: productId, offerId: offerId, applicationUsername: applicationUsername, nonce: nonce,
            timestampMs: timestampMs)
        let der = try key.signDER(message)
        return Signature(signature: Base64.encode(der, alphabet: .standard), nonce: nonce, timestampMs: timestampMs)
    }
}
