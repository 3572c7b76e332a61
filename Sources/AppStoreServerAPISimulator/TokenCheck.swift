import AppStore
import AppStoreServerAPI
import Crypto
import Foundation
import JSON

/// Checks an App Store Server API token as Apple does: ES256, a known `kid`, signed by that
/// key, `typ: JWT`, the key's issuer as `iss`, `aud: appstoreconnect-v1`, a `bid` this key may
/// act for, and a window of at most 60 minutes that holds now.
public struct TokenCheck: Sendable {
    /// An In-App Purchase key as App Store Connect knows it: its public half only.
    public struct Key: Sendable {
        public var keyId: String
        public var issuerId: String
        public var publicKey: ECPublicKey
        /// The bundle IDs of the apps this key's team owns.
        public var bundleIds: Set<String>

        public init(keyId: String, issuerId: String, publicKeyPEM: String, bundleIds: Set<String>) throws {
            self.keyId = keyId
            self.issuerId = issuerId
            self.publicKey = try ECPublicKey(pem: publicKeyPEM)
            self.bundleIds = bundleIds
        }
    }

    /// Why a token is refused (Apple answers 401 without saying; tests and logs want to know).
    public struct Refusal: Error, Equatable, CustomStringConvertible, Sendable {
        public var description: String
    }

    /// Seconds a token's `iat` may lie ahead of this server's clock.
    public static let allowedClockSkewSeconds: Int64 = 60

    public var keys: [Key]

    public init(keys: [Key]) { self.keys = keys }

    /// The bundle ID a valid `Authorization` header acts for.
    public func check(authorization: String?, now: Date) throws(Refusal) -> String {
        guard let authorization, authorization.hasPrefix("Bearer ") else { throw Refusal(description: "no bearer token") }
        let token = String(authorization.dropFirst("Bearer ".count))
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerData = Base64.decode(parts[0], alphabet: .url),
            let payloadData = Base64.decode(parts[1], alphabet: .url),
            let header = try? JSONValue(parsing: headerData), let claims = try? JSONValue(parsing: payloadData)
        else { throw Refusal(description: "not a compact JWS") }
        guard header["alg"] == .string("ES256") else { throw Refusal(description: "alg is not ES256") }
        guard header["typ"] == .string("JWT") else { throw Refusal(description: "typ is not JWT") }
        guard case .string(let keyId) = header["kid"], keys.contains(where: { $0.keyId == keyId }) else {
            throw Refusal(description: "unknown kid")
        }
        // One key is listed once for each app that uses it (a team's key serves all its apps).
        let signing = keys.filter { $0.keyId == keyId && $0.publicKey.verifiesJWS(token) }
        guard let key = signing.first else { throw Refusal(description: "the signature is not the key's") }
        guard claims["iss"] == .string(key.issuerId) else { throw Refusal(description: "iss is not the key's issuer") }
        guard claims["aud"] == .string(APIToken.audience) else { throw Refusal(description: "aud is not appstoreconnect-v1") }
        let bundleIds = signing.filter { $0.issuerId == key.issuerId }.reduce(into: Set<String>()) { $0.formUnion($1.bundleIds) }
        guard case .string(let bundleId) = claims["bid"], bundleIds.contains(bundleId) else {
            throw Refusal(description: "bid is not an app of the key's team")
        }
        guard case .integer(let expires) = claims["exp"] else { throw Refusal(description: "no exp") }
        let nowSeconds = Int64(now.timeIntervalSince1970)
        // Apple's Python library sends no iat, and Apple takes its tokens: the lifetime then
        // counts from now.
        let issued: Int64
        switch claims["iat"] {
        case .integer(let value)?:
            guard value <= nowSeconds + Self.allowedClockSkewSeconds else { throw Refusal(description: "iat is in the future") }
            issued = value
        case nil: issued = nowSeconds
        case _?: throw Refusal(description: "iat is not a number")
        }
        guard expires > nowSeconds else { throw Refusal(description: "expired") }
        guard expires - issued <= APIToken.maximumLifetimeSeconds else {
            throw Refusal(description: "exp is more than 60 minutes after iat (or now, without iat)")
        }
        return bundleId
    }
}
