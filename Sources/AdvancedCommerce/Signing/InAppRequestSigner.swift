import AppStore
import Crypto
import Foundation

/// Signs Advanced Commerce in-app requests with the app's In-App Purchase key, as StoreKit
/// expects them in the `advancedCommerceData` purchase option.
///
/// A JWS (ES256) with header `{"alg": "ES256", "kid": <key id>, "typ": "JWT"}` and claims
/// `iss` (issuer id), `iat` (seconds), `aud` "advanced-commerce-api", `bid` (bundle id), `nonce`
/// (a fresh UUID) and `request` (the request's UTF-8 JSON in standard base64). No `exp`: Apple's
/// libraries set none for in-app requests.
/// https://developer.apple.com/documentation/storekit/generating-jws-to-sign-app-store-requests
public struct InAppRequestSigner: Sendable {
    public static let audience = "advanced-commerce-api"
    public let issuerId: String
    public let bundleId: String
    private let signer: JWSSigner

    public init(key: ECPrivateKey, keyId: String, issuerId: String, bundleId: String) throws {
        signer = try JWSSigner(key: key, keyId: keyId, type: "JWT")
        self.issuerId = issuerId
        self.bundleId = bundleId
    }

    /// The request's JSON as signed: Apple's field names, absent fields omitted, keys sorted.
    public static func json(_ request: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(request)
    }

    /// The signed token for `request`, issued at `now`.
    public func sign(_ request: some Encodable, at now: Date, nonce: UUID = UUID()) throws -> String {
        let claims = Claims(
            iss: issuerId, iat: Int64(now.timeIntervalSince1970), aud: Self.audience, bid: bundleId,
            nonce: nonce.uuidString.lowercased(),
            request: Base64.encode(try Self.json(request), alphabet: .standard))
        return try signer.sign(claims)
    }

    struct Claims: Codable, Equatable {
        var iss: String
        var iat: Int64
        var aud: String
        var bid: String
        var nonce: String
        var request: String
    }
}
