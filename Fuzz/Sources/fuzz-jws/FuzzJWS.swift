import AppStore
import Crypto
import Foundation
import FuzzSupport
import JSON
import Storage

/// Compact JWS splitting (through `UnverifiedPayload` and `SignedDataVerifier.kind`), base64 and
/// base64url, and `JWSCompaction`.
///
/// Beyond not crashing: a text base64 accepts is the one encoding of its bytes; a compact form
/// expands to exactly the JWS it was made of; and any bytes `expand` accepts give a JWS that
/// compacts and expands back to itself. An input starting with NUL or 0x01 is taken as a compact
/// form, any other as a JWS.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzJWS.test(UnsafeRawBufferPointer(fuzzInput: data, count: size))
    return 0
}

@main
enum FuzzJWS {
    static func main() { FuzzDriver.main(fuzzOneInput) }

    /// What `expand` gets for any header hash it asks about: a real JWS header.
    static let someHeader = "eyJhbGciOiJFUzI1NiIsIng1YyI6WyJBQUFBIiwiQkJCQiIsIkNDQ0MiXX0"

    static func test(_ bytes: UnsafeRawBufferPointer) {
        checkBase64(bytes)
        if let first = bytes.first, first <= 1 {
            let externals: [Data?] = [Data("{\"a\":1}".utf8), nil, Data(bytes.prefix(40))]
            let expanded = JWSCompaction.expand(Data(bytes), externals: externals) { _ in someHeader }
            if let expanded { checkJWS(expanded) }
            return
        }
        checkJWS(String(decoding: bytes, as: UTF8.self))
    }

    static func checkJWS(_ text: String) {
        _ = try? UnverifiedPayload.json(of: text)
        _ = try? SignedDataVerifier.kind(of: text)
        _ = try? SignedDataVerifier.unwrapRequestBody(text)

        let externals = nestedPayloads(of: text)
        for externals in [[], externals, [nil] + externals] {
            guard let compacted = JWSCompaction.compact(text, externals: externals) else { continue }
            let expanded = JWSCompaction.expand(compacted.body, externals: externals) { compacted.headers[$0] }
            precondition(expanded == text, "a compact form does not expand to its JWS")
            if !externals.isEmpty {
                // Without the externals it referred to, the form must not expand to another JWS.
                let without = JWSCompaction.expand(compacted.body) { compacted.headers[$0] }
                precondition(without == nil || without == text, "a compact form expands without its externals")
            }
        }
    }

    /// The decoded payloads of the JWS nested in `text`'s payload (a notification's transaction and
    /// renewal info), which the store keeps as externals.
    static func nestedPayloads(of text: String) -> [Data?] {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64.decode(parts[1], alphabet: .url),
            let json = try? JSONValue(parsing: payload), let data = json["data"]
        else { return [] }
        return ["signedTransactionInfo", "signedRenewalInfo"].map { name in
            guard let nested = data[name]?.stringValue else { return nil }
            let segments = nested.split(separator: ".", omittingEmptySubsequences: false)
            return segments.count == 3 ? Base64.decode(segments[1], alphabet: .url) : nil
        }
    }

    /// Each alphabet accepts exactly one text per byte string (base64url with or without padding),
    /// and `isEncoding` agrees with `encode`.
    static func checkBase64(_ bytes: UnsafeRawBufferPointer) {
        for alphabet in [Base64.Alphabet.standard, .url] {
            if let decoded = Base64.decode(bytes, alphabet: alphabet) {
                var text = Array(bytes)
                if alphabet == .url { text.removeAll { $0 == UInt8(ascii: "=") } }
                precondition(Array(Base64.encode(decoded, alphabet: alphabet).utf8) == text, "two texts for one byte string")
                let unpadded = bytes.last != UInt8(ascii: "=")
                let isEncoding = decoded.withUnsafeBytes { Base64.isEncoding(of: $0, text: bytes, alphabet: alphabet) }
                precondition(isEncoding == (alphabet == .standard || unpadded), "isEncoding disagrees with decode")
            }
            let encoded = Base64.encode(bytes, alphabet: alphabet)
            precondition(Base64.decode(encoded, alphabet: alphabet) == Data(bytes), "encode does not decode back")
            let isEncoding = Array(encoded.utf8).withUnsafeBytes { Base64.isEncoding(of: bytes, text: $0, alphabet: alphabet) }
            precondition(isEncoding, "isEncoding refuses encode's text")
            precondition(Base64.endOfSymbols(in: bytes, from: 0, alphabet: alphabet) <= bytes.count)
        }
    }
}
