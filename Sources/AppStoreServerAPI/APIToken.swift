import AppStore
import Crypto
import Foundation

/// The JSON Web Token that authorizes one App Store Server API request.
///
/// ES256 with the app's In-App Purchase key; header `alg`, `kid` (the key ID), `typ: JWT`;
/// claims `iss` (the issuer ID), `iat`, `exp`, `aud: appstoreconnect-v1` and `bid` (the bundle
/// ID). Apple refuses a token that expires more than 60 minutes after `iat`; a token is made per
/// request and lives `lifetimeSeconds`, as Apple's libraries do (5 minutes).
/// https://developer.apple.com/documentation/appstoreserverapi/generating-json-web-tokens-for-api-requests
public struct APIToken: Sendable {
    /// What Apple's token carries besides its signature.
    public struct Claims: Codable, Equatable, Sendable {
        public var iss: String
        public var iat: Int64
        public var exp: Int64
        public var aud: String
        public var bid: String

        public init(iss: String, iat: Int64, exp: Int64, aud: String = APIToken.audience, bid: String) {
            self.iss = iss
            self.iat = iat
            self.exp = exp
            self.aud = aud
            self.bid = bid
        }
    }

    public static let audience = "appstoreconnect-v1"
    /// How long a token is valid: Apple's libraries use 5 minutes; Apple allows at most 60.
    public static let lifetimeSeconds: Int64 = 300
    public static let maximumLifetimeSeconds: Int64 = 3600

    private let signer: JWSSigner
    public let issuerId: String
    public let bundleId: String

    /// A token maker for the key `keyId` (a `.p8` PEM, P-256) of `issuerId`, for `bundleId`.
    public init(p8 pem: String, keyId: String, issuerId: String, bundleId: String) throws {
        signer = try JWSSigner(p8: pem, keyId: keyId, type: "JWT")
        self.issuerId = issuerId
        self.bundleId = bundleId
    }

    /// A token maker for `key` (P-256), as `init(p8:keyId:issuerId:bundleId:)`.
    public init(key: ECPrivateKey, keyId: String, issuerId: String, bundleId: String) throws {
        signer = try JWSSigner(key: key, keyId: keyId, type: "JWT")
        self.issuerId = issuerId
        self.bundleId = bundleId
    }

    public var keyId: String { signer.keyId ?? "" }

    /// A token valid from `now` for `lifetimeSeconds`.
    public func make(now: Date) throws -> String {
        let issuedAt = Int64(now.timeIntervalSince1970.rounded(.down))
        return try signer.sign(
            Claims(iss: issuerId, iat: issuedAt, exp: issuedAt + Self.lifetimeSeconds, bid: bundleId))
    }
}
