import Foundation

/// The payload segment of a JWS as this module decoded it, tied to the JWS text it came from.
///
/// Only this module makes one, from its strict base64url decoding of that text's own payload
/// segment (`CompactJWS`). When the segment has no padding, that decoding is one to one (symbols
/// outside the alphabet and nonzero unused bits are refused), so the segment is exactly the
/// encoding of `json`, and `JWSCompaction` can rely on it without encoding `json` again.
public struct DecodedJWSPayload: Sendable {
    /// The bytes the payload segment decodes to.
    public let json: Data
    /// The JWS whose payload segment `json` is the decoding of.
    package let jws: String
    /// Whether the payload segment is exactly the unpadded base64url encoding of `json`.
    package let isCanonical: Bool

    init(json: Data, jws: String, isCanonical: Bool) {
        self.json = json
        self.jws = jws
        self.isCanonical = isCanonical
    }
}
