import Crypto
import Foundation

/// Signs compact JWS with ES256, as App Store signs its data and as Apple expects of
/// developer-signed requests (App Store Server API tokens, Advanced Commerce requests).
public struct JWSSigner: Sendable {
    /// The P-256 signing key.
    public let key: ECPrivateKey
    /// Base64 DER certificates for the `x5c` header (leaf first), when the JWS carries a chain.
    public var x5c: [String]?
    /// The `kid` header: the App Store Connect key ID.
    public var keyId: String?
    /// The `typ` header, such as "JWT".
    public var type: String?

    /// A signer with a P-256 key; other curves are an error, since ES256 means P-256.
    public init(key: ECPrivateKey, x5c: [String]? = nil, keyId: String? = nil, type: String? = nil) throws {
        guard key.curve == .p256 else { throw ConfigurationError("ES256 needs a P-256 key, not \(key.curve.rawValue)") }
        self.key = key
        self.x5c = x5c
        self.keyId = keyId
        self.type = type
    }

    /// A signer for a `.p8` key as App Store Connect issues it (PKCS#8 PEM, P-256).
    public init(p8 pem: String, keyId: String? = nil, type: String? = nil) throws {
        try self.init(key: try ECPrivateKey(pem: pem), keyId: keyId, type: type)
    }

    private struct Header: Encodable {
        var alg = "ES256"
        var kid: String?
        var typ: String?
        var x5c: [String]?
    }

    /// Signs `payload` (JSON bytes) and returns `header.payload.signature`.
    public func sign(payload: Data) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let header = try encoder.encode(Header(kid: keyId, typ: type, x5c: x5c))
        let signingInput = Base64.encode(header, alphabet: .url) + "." + Base64.encode(payload, alphabet: .url)
        let signature = try key.signRaw(Array(signingInput.utf8))
        return signingInput + "." + Base64.encode(signature, alphabet: .url)
    }

    /// Encodes `value` as JSON and signs it.
    public func sign(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try sign(payload: encoder.encode(value))
    }
}
