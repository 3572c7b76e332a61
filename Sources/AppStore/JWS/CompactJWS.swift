import Crypto
import Foundation

/// A JWS in compact serialization (RFC 7515 §7.1), split and base64url-checked but not verified.
///
/// The header segment is kept as its raw bytes and decoded only on request: App Store signs
/// every payload of a period with one chain, so headers repeat byte for byte (a notification
/// and the transaction and renewal info nested in it always share one), and the verifier
/// checks a repeated header once.
struct CompactJWS {
    /// The whole JWS text; its first two segments are the bytes the signature covers.
    let text: String
    /// The UTF-8 length of `BASE64URL(header) '.' BASE64URL(payload)`.
    private let signingInputLength: Int
    /// The header segment, still base64url.
    let headerSegment: [UInt8]
    let payload: Data
    let signature: Data

    /// Splits `text` into its three segments; anything else is `verificationFailure`.
    init(_ text: String) throws(VerificationError) {
        var text = text
        text.makeContiguousUTF8()
        let parsed = text.utf8.withContiguousStorageIfAvailable {
            Self.split(UnsafeRawBufferPointer($0))
        }
        guard let parsed else { throw VerificationError(.verificationFailure, "not a compact JWS") }
        switch parsed {
        case .failure(let error): throw error
        case .success(let parts):
            self.text = text
            signingInputLength = parts.signingInputLength
            headerSegment = parts.headerSegment
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
        var payload: Data
        var signature: Data
    }

    private static func split(
        _ bytes: UnsafeRawBufferPointer
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
        var decoded: [Data] = []
        for (range, name) in zip(ranges, names).dropFirst() {
            guard let segment = Base64.decode(UnsafeRawBufferPointer(rebasing: bytes[range]), alphabet: .url) else {
                return .failure(VerificationError(.verificationFailure, "JWS \(name) is not base64url"))
            }
            decoded.append(segment)
        }
        return .success(
            Parts(
                signingInputLength: dots[1], headerSegment: headerSegment, payload: decoded[0], signature: decoded[1]))
    }

    /// The decoded header segment.
    func header() throws(VerificationError) -> Data {
        guard let header = headerSegment.withUnsafeBytes({ Base64.decode($0, alphabet: .url) }) else {
            throw VerificationError(.verificationFailure, "JWS header is not base64url")
        }
        return header
    }
}
