import Foundation

/// A JWS in compact serialization (RFC 7515 §7.1), split and base64url-checked but not verified.
///
/// The header segment is kept as its raw bytes: a notification and the transaction and renewal
/// info nested in it carry byte-identical headers (the same `x5c`), so the verifier parses
/// such a header once.
struct CompactJWS {
    /// The whole JWS text; its first two segments are the bytes the signature covers.
    private let text: String
    /// The UTF-8 length of `BASE64URL(header) '.' BASE64URL(payload)`.
    private let signingInputLength: Int
    /// The header segment, still base64url (already checked to decode).
    let headerSegment: [UInt8]
    /// The decoded header; nil when the segment equals the `knownHeaderSegment` given.
    let header: Data?
    let payload: Data
    let signature: Data

    /// Splits `text` into its three segments; anything else is `verificationFailure`.
    /// A header segment byte-identical to `knownHeaderSegment` (already checked) is not decoded.
    init(_ text: String, knownHeaderSegment: [UInt8]? = nil) throws(VerificationError) {
        var text = text
        text.makeContiguousUTF8()
        let parsed = text.utf8.withContiguousStorageIfAvailable {
            Self.split(UnsafeRawBufferPointer($0), knownHeaderSegment: knownHeaderSegment)
        }
        guard let parsed else { throw VerificationError(.verificationFailure, "not a compact JWS") }
        switch parsed {
        case .failure(let error): throw error
        case .success(let parts):
            self.text = text
            signingInputLength = parts.signingInputLength
            headerSegment = parts.headerSegment
            header = parts.header
            payload = parts.payload
            signature = parts.signature
        }
    }

    /// Calls `body` with the signing input's bytes, without copying them.
    func withSigningInput<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        text.utf8.withContiguousStorageIfAvailable { buffer in
            body(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[0..<signingInputLength]))
        } ?? body(UnsafeRawBufferPointer(start: nil, count: 0))
    }

    private struct Parts {
        var signingInputLength: Int
        var headerSegment: [UInt8]
        var header: Data?
        var payload: Data
        var signature: Data
    }

    private static func split(
        _ bytes: UnsafeRawBufferPointer, knownHeaderSegment: [UInt8]?
    ) -> Result<Parts, VerificationError> {
        var dots: [Int] = []
        var from = 0
        while dots.count < 3, from < bytes.count,
            let found = memchr(bytes.baseAddress! + from, Int32(UInt8(ascii: ".")), bytes.count - from)
        {
            let index = UnsafeRawPointer(found) - bytes.baseAddress!
            dots.append(index)
            from = index + 1
        }
        guard dots.count == 2 else {
            let segments = dots.count > 2 ? "more than 3" : "\(dots.count + 1)"
            return .failure(VerificationError(.verificationFailure, "not a compact JWS: \(segments) segment(s), expected 3"))
        }
        let ranges = [0..<dots[0], (dots[0] + 1)..<dots[1], (dots[1] + 1)..<bytes.count]
        let names = ["header", "payload", "signature"]
        for (range, name) in zip(ranges, names) where range.isEmpty {
            return .failure(VerificationError(.verificationFailure, "not a compact JWS: the \(name) segment is empty"))
        }
        let headerSegment = Array(UnsafeRawBufferPointer(rebasing: bytes[ranges[0]]))
        var decoded: [Data?] = []
        for (range, name) in zip(ranges, names) {
            if range == ranges[0], knownHeaderSegment == headerSegment {
                decoded.append(nil)
                continue
            }
            guard let segment = Base64.decode(UnsafeRawBufferPointer(rebasing: bytes[range]), alphabet: .url) else {
                return .failure(VerificationError(.verificationFailure, "JWS \(name) is not base64url"))
            }
            decoded.append(segment)
        }
        return .success(
            Parts(
                signingInputLength: dots[1], headerSegment: headerSegment, header: decoded[0], payload: decoded[1]!,
                signature: decoded[2]!))
    }
}
