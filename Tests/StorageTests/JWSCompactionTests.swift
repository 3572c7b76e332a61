import AppStoreFixtures
import Crypto
import Foundation
import Testing

@testable import AppStore
@testable import Storage

@Suite("JWS compaction")
struct JWSCompactionTests {
    @Test func notificationsComeBackByteForByteWithOneSharedHeader() throws {
        var seen: Set<String> = []
        for type in ["SUBSCRIBED", "DID_RENEW", "REFUND"] {
            let jws = try Fixtures.sign(try Fixtures.notificationJSON(type: type))
            let compact = try #require(JWSCompaction.compact(jws))
            #expect(JWSCompaction.expand(compact.body) { compact.headers[$0] } == jws)
            // The outer and both nested headers carry the same chain: named once, referenced thrice.
            #expect(compact.headers.count == 1)
            seen.formUnion(compact.headers.keys)
            #expect(compact.body.count * 3 < jws.utf8.count, "\(compact.body.count) of \(jws.utf8.count) bytes")
            let header = try #require(compact.headers.values.first)
            #expect(compact.headers.keys.first == Digest.hex(Digest.sha256(Data(header.utf8))))
        }
        #expect(seen.count == 1)
    }

    /// The payload the verifier already decoded saves a decode; a wrong one cannot slip through.
    @Test func anAlreadyDecodedPayloadIsTrustedNoMoreThanTheJWS() throws {
        let jws = try Fixtures.sign(try Fixtures.notificationJSON(type: "DID_RENEW"))
        let segment = jws.split(separator: ".", omittingEmptySubsequences: false)[1]
        let payload = try #require(Base64.decode(segment, alphabet: .url))
        #expect(JWSCompaction.compact(jws, payload: payload) == JWSCompaction.compact(jws))
        var altered = payload
        altered[altered.startIndex + 2] ^= 0x01
        #expect(JWSCompaction.compact(jws, payload: altered) == nil)
        #expect(JWSCompaction.compact(jws, payload: payload + Data("x".utf8)) == nil)
        #expect(JWSCompaction.compact(jws, payload: Data()) == nil)
    }

    /// Finding a nested header by the outer one it repeats gives the ranges a scan gives, also
    /// where the repeat runs on past the outer header's length or is followed by something else.
    @Test func nestedHeadersFoundByTheOuterOneAreTheScannedOnes() throws {
        var generator = SystemRandomNumberGenerator()
        let symbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        let outer = Array("eyJ".utf8) + (0..<300).map { _ in symbols.randomElement(using: &generator)! }
        for _ in 0..<200 {
            var payload: [UInt8] = Array(#"{"a":""#.utf8)
            for _ in 0..<Int.random(in: 1...5, using: &generator) {
                switch Int.random(in: 0..<5, using: &generator) {
                case 0: payload += Array("\"".utf8) + outer + Array(".eyJ9.c2ln".utf8)
                case 1: payload += Array("\"".utf8) + outer + Array("Qx.eyJ9".utf8)
                case 2: payload += Array("\"".utf8) + outer + Array("\"".utf8)
                case 3: payload += Array("\"".utf8) + outer.dropLast() + Array(".eyJ9".utf8)
                default:
                    payload +=
                        Array("\"eyJ".utf8) + (0..<280).map { _ in symbols.randomElement(using: &generator)! } + Array(".".utf8)
                }
            }
            payload += Array(#""}"#.utf8)
            let scanned = payload.withUnsafeBytes { JWSCompaction.nestedHeaders(in: $0) }
            let found = payload.withUnsafeBytes { JWSCompaction.nestedHeaders(in: $0, likely: outer) }
            #expect(found.map(\.0) == scanned.map(\.0))
            #expect(found.map(\.1) == scanned.map(\.1))
        }
    }

    @Test func eachDistinctChainIsItsOwnHeader() throws {
        let mixed = try Fixtures.sign(try Fixtures.notificationJSON(chain: Fixtures.otherChain), with: Fixtures.chain)
        let compact = try #require(JWSCompaction.compact(mixed))
        #expect(compact.headers.count == 2)
        #expect(JWSCompaction.expand(compact.body) { compact.headers[$0] } == mixed)
        // A header the store does not know cannot be expanded into something else.
        let known = try #require(compact.headers.keys.first)
        #expect(JWSCompaction.expand(compact.body) { $0 == known ? compact.headers[$0] : nil } == nil)
    }

    /// The last header's hash is remembered across calls: alternating chains must each keep
    /// the hash of their own bytes.
    @Test func alternatingChainsEachGetTheirOwnHash() throws {
        let first = try Fixtures.sign(try Fixtures.notificationJSON(), with: Fixtures.chain)
        let second = try Fixtures.sign(try Fixtures.notificationJSON(chain: Fixtures.otherChain), with: Fixtures.otherChain)
        for jws in [first, second, second, first, second, first] {
            let compact = try #require(JWSCompaction.compact(jws))
            #expect(compact.headers.count == 1)
            for (hash, header) in compact.headers {
                #expect(hash == Digest.hex(Digest.sha256(Data(header.utf8))))
            }
            #expect(JWSCompaction.expand(compact.body) { compact.headers[$0] } == jws)
        }
    }

    @Test func whatWouldNotComeBackExactlyIsLeftAsItIs() throws {
        let jws = try Fixtures.sign(try Fixtures.notificationJSON())
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        // Non-canonical base64url (padding), a payload with a NUL byte, a short header, not a JWS.
        let padded = parts[0] + "." + Base64.encode(Data("{\"a\":1}".utf8), alphabet: .standard) + "." + parts[2]
        let withNul = parts[0] + "." + Base64.encode(Data("{\"a\":\"\u{0}\"}".utf8), alphabet: .url) + "." + parts[2]
        let short = "eyJhbGciOiJFUzI1NiJ9." + parts[1] + "." + parts[2]
        for text in [padded, withNul, short, "not a jws", parts[0] + "." + parts[1], jws + ".extra", ""] {
            #expect(JWSCompaction.compact(text) == nil, "\(text.prefix(40))")
        }
        #expect(JWSCompaction.expand(Data("plain".utf8)) { _ in "x" } == nil)
    }

    @Test func payloadsWithDotsAndLookalikesSurvive() throws {
        let jws = try Fixtures.sign(
            try Fixtures.notificationJSON(
                transaction: Fixtures.transactionJSON().merging(
                    ["productId": "com.example.pro.v1.0", "appAccountToken": "eyJ.not.a.header"]) { $1 }))
        let compact = try #require(JWSCompaction.compact(jws))
        #expect(JWSCompaction.expand(compact.body) { compact.headers[$0] } == jws)
    }

    @Test func base64EncodesEveryLengthAsBefore() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 91 + 7) }
            #expect(Base64.encode(bytes, alphabet: .standard) == Data(bytes).base64EncodedString())
            let url = Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            #expect(Base64.encode(bytes, alphabet: .url) == url)
        }
    }

    /// Headers are matched by bytes: an outer header canonically equivalent to a nested one
    /// (U+212A KELVIN SIGN ≡ "K") is a different header, and the JWS comes back byte for byte.
    @Test func canonicallyEquivalentHeadersStayDistinct() throws {
        let nested = "eyJ" + String(repeating: "K", count: 300)
        let outer = "eyJ" + String(repeating: "\u{212A}", count: 300)
        let payload = #"{"signedTransactionInfo":"\#(nested).eyJhIjoxfQ.c2ln"}"#
        let jws = outer + "." + Base64.encode(Data(payload.utf8), alphabet: .url) + ".c2lnbmF0dXJl"
        let compact = try #require(JWSCompaction.compact(jws))
        #expect(compact.headers.count == 2)
        let expanded = try #require(JWSCompaction.expand(compact.body) { compact.headers[$0] })
        #expect(expanded.utf8.elementsEqual(jws.utf8))
        for (hash, text) in compact.headers {
            #expect(hash == Digest.hex(Digest.sha256(Data(text.utf8))))
        }
    }
    /// `compact` no longer expands its result to check it; it proves each part instead. Random
    /// payloads with nested headers of every kind of length, dots and lookalikes must all come
    /// back byte for byte, and a decoded payload one byte off must be refused.
    @Test func randomPayloadsComeBackExactlyOrAreLeftAsTheyAre() throws {
        var generator = SystemRandomNumberGenerator()
        let symbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        func symbolRun(_ count: Int) -> [UInt8] { (0..<count).map { _ in symbols.randomElement(using: &generator)! } }
        let outer = "eyJ" + String(decoding: symbolRun(400), as: UTF8.self)
        var compacted = 0
        for _ in 0..<300 {
            var payload: [UInt8] = Array(#"{"a":""#.utf8)
            for _ in 0..<Int.random(in: 0...4, using: &generator) {
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: payload += Array("\"eyJ".utf8) + symbolRun(Int.random(in: 250...300, using: &generator)) + Array(".".utf8)
                case 1: payload += Array("\"".utf8) + Array(outer.utf8) + Array(".eyJ9.c2ln".utf8)
                case 2: payload += Array("..eyJ.x\"".utf8)
                default:
                    payload += (0..<Int.random(in: 1...40, using: &generator)).map { _ in
                        UInt8.random(in: 1...0x7F, using: &generator)
                    }
                }
            }
            payload += Array(#""}"#.utf8)
            let jws = outer + "." + Base64.encode(payload, alphabet: .url) + "." + String(decoding: symbolRun(86), as: UTF8.self)
            guard let compact = JWSCompaction.compact(jws, payload: Data(payload)) else { continue }
            compacted += 1
            #expect(compact == JWSCompaction.compact(jws))
            let expanded = try #require(JWSCompaction.expand(compact.body) { compact.headers[$0] })
            #expect(expanded.utf8.elementsEqual(jws.utf8))
            var altered = payload
            altered[Int.random(in: 0..<altered.count, using: &generator)] ^= UInt8.random(in: 1...0x3F, using: &generator)
            #expect(JWSCompaction.compact(jws, payload: Data(altered)) == nil)
        }
        #expect(compacted == 300)
    }

    @Test func base64EncodingIsRecognizedExactly() {
        for alphabet in [Base64.Alphabet.standard, .url] {
            for length in 0..<40 {
                let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 73 + 11) }
                let text = Array(Base64.encode(bytes, alphabet: alphabet).utf8)
                func recognized(_ text: [UInt8]) -> Bool {
                    bytes.withUnsafeBytes { bytes in
                        text.withUnsafeBytes { Base64.isEncoding(of: bytes, text: $0, alphabet: alphabet) }
                    }
                }
                #expect(recognized(text))
                #expect(!recognized(text + Array("A".utf8)))
                #expect(!recognized(text + Array("=".utf8)))
                if !text.isEmpty { #expect(!recognized(Array(text.dropLast()))) }
                for index in text.indices {
                    var changed = text
                    changed[index] = changed[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
                    #expect(!recognized(changed), "\(alphabet) length \(length) position \(index)")
                }
            }
        }
    }
}
