import Foundation

/// A JWS in compact serialization (RFC 7515 §7.1), split and base64url-decoded but not verified.
struct CompactJWS {
    /// `BASE64URL(header) '.' BASE64URL(payload)`: the bytes the signature covers.
    let signingInput: Substring
    let header: Data
    let payload: Data
    let signature: Data

    /// Splits `text` into its three segments; anything else is `verificationFailure`.
    init(_ text: String) throws(VerificationError) {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw VerificationError(.verificationFailure, "not a compact JWS: \(parts.count) segment(s), expected 3")
        }
        guard !parts[0].isEmpty, !parts[1].isEmpty, !parts[2].isEmpty else {
            throw VerificationError(.verificationFailure, "not a compact JWS: an empty segment")
        }
        let names = ["header", "payload", "signature"]
        var decoded: [Data] = []
        for (index, part) in parts.enumerated() {
            guard let bytes = Base64.decode(Substring(part), alphabet: .url) else {
                throw VerificationError(.verificationFailure, "JWS \(names[index]) is not base64url")
            }
            decoded.append(bytes)
        }
        signingInput = Substring(text.utf8[parts[0].startIndex..<parts[1].endIndex])
        header = decoded[0]
        payload = decoded[1]
        signature = decoded[2]
    }
}
