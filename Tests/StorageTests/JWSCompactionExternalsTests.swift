import AppStoreFixtures
import Crypto
import Foundation
import Testing

@testable import AppStore
@testable import Storage

/// A compact form may leave out nested payload segments that the caller keeps elsewhere (the store
/// keeps the decoded transaction and renewal info in columns), and comes back exactly when given them.
@Suite("JWS compaction with external payloads")
struct JWSCompactionExternalsTests {
    /// A signed notification and its nested payloads as the verifier decoded them.
    static func notification(type: String = "DID_RENEW") throws -> (jws: String, transaction: Data, renewal: Data) {
        let jws = try Fixtures.sign(try Fixtures.notificationJSON(type: type))
        let verified = try Fixtures.verifier().verifyNotification(jws, now: Fixtures.now)
        let transaction = try #require(verified.transaction?.json)
        let renewal = try #require(verified.renewalInfo?.json)
        return (jws, transaction, renewal)
    }

    @Test func nestedPayloadsGivenAsExternalsAreLeftOutAndComeBack() throws {
        let (jws, transaction, renewal) = try Self.notification()
        let plain = try #require(JWSCompaction.compact(jws))
        let compact = try #require(JWSCompaction.compact(jws, externals: [transaction, renewal]))
        #expect(compact.headers == plain.headers)
        // Each segment (its base64url text) gives way to 18 bytes (0x01, the index, 16 hex digits of
        // its SHA-256), and one byte marks the form.
        let left = Base64.encode(transaction, alphabet: .url).utf8.count + Base64.encode(renewal, alphabet: .url).utf8.count
        #expect(compact.body.count == plain.body.count - left + 1 + 2 * 18)
        let digest = Digest.hex(Digest.sha256(transaction)).prefix(16)
        #expect(compact.body.range(of: Data([1, UInt8(ascii: "0")] + Array(digest.utf8))) != nil)
        #expect(compact.body.first == 1 && plain.body.first == 0)
        #expect(compact.body.range(of: Data([1, UInt8(ascii: "0")])) != nil)
        #expect(compact.body.range(of: Data([1, UInt8(ascii: "1")])) != nil)
        #expect(JWSCompaction.expand(compact.body, externals: [transaction, renewal]) { compact.headers[$0] } == jws)
    }

    /// Without the externals it refers to, a compact form does not expand: never a wrong JWS.
    @Test func aMissingOrDifferentExternalGivesNothingOrNotTheSame() throws {
        let (jws, transaction, renewal) = try Self.notification()
        let compact = try #require(JWSCompaction.compact(jws, externals: [transaction, renewal]))
        #expect(JWSCompaction.expand(compact.body) { compact.headers[$0] } == nil)
        #expect(JWSCompaction.expand(compact.body, externals: [transaction]) { compact.headers[$0] } == nil)
        #expect(JWSCompaction.expand(compact.body, externals: [nil, renewal]) { compact.headers[$0] } == nil)
        // A different external (one byte changed, or swapped with the other) is refused by its digest.
        var altered = transaction
        altered[altered.startIndex] ^= 0x20
        #expect(JWSCompaction.expand(compact.body, externals: [altered, renewal]) { compact.headers[$0] } == nil)
        #expect(JWSCompaction.expand(compact.body, externals: [renewal, transaction]) { compact.headers[$0] } == nil)
        // A reference to an index no digit names is no compact form.
        var body = compact.body
        let at = try #require(body.range(of: Data([1, UInt8(ascii: "0")])))
        body[at.lowerBound + 1] = UInt8(ascii: "x")
        #expect(JWSCompaction.expand(body, externals: [transaction, renewal]) { compact.headers[$0] } == nil)
    }

    /// Only a whole segment that is exactly an external's encoding, and longer than a reference, is
    /// referred to: an external found nowhere, one whose bytes differ by one, or one too short to
    /// gain from, leaves the form as without externals.
    @Test func anExternalThatIsNoSegmentChangesNothing() throws {
        let (jws, transaction, renewal) = try Self.notification()
        let plain = try #require(JWSCompaction.compact(jws))
        var altered = transaction
        altered[altered.index(before: altered.endIndex)] ^= 0x01
        for externals in [
            [altered, nil], [Data("{}".utf8), nil], [nil, nil], [Data(), Data()], [transaction.dropLast(), nil],
        ] {
            #expect(JWSCompaction.compact(jws, externals: externals) == plain)
        }
        // One of the two: only that one is left out, at its own index.
        let one = try #require(JWSCompaction.compact(jws, externals: [nil, renewal]))
        #expect(one.body.range(of: Data([1, UInt8(ascii: "1")])) != nil)
        #expect(one.body.range(of: Data([1, UInt8(ascii: "0")])) == nil)
        #expect(JWSCompaction.expand(one.body, externals: [nil, renewal]) { one.headers[$0] } == jws)
    }

    /// Forms made without externals (rows stored before) expand as before, externals given or not.
    @Test func formsWithoutReferencesIgnoreExternals() throws {
        let (jws, transaction, renewal) = try Self.notification(type: "SUBSCRIBED")
        let plain = try #require(JWSCompaction.compact(jws))
        #expect(JWSCompaction.expand(plain.body, externals: [transaction, renewal]) { plain.headers[$0] } == jws)
        #expect(JWSCompaction.expand(plain.body) { plain.headers[$0] } == jws)
    }

    /// A payload holding a 0x01 byte (never valid JSON, but `compact` takes any payload) refers to
    /// no external: its own 0x01 could not be told from a reference.
    @Test func aPayloadHoldingTheReferenceByteRefersToNoExternal() throws {
        let nested = "eyJ" + String(repeating: "K", count: 300)
        let inner = Data(#"{"a":"\#(String(repeating: "x", count: 60))"}"#.utf8)
        let payload = #"{"x":"\#u{1}0","signedTransactionInfo":"\#(nested).\#(Base64.encode(inner, alphabet: .url)).c2ln"}"#
        let jws = nested + "." + Base64.encode(Data(payload.utf8), alphabet: .url) + ".c2lnbmF0dXJl"
        let plain = try #require(JWSCompaction.compact(jws))
        #expect(JWSCompaction.compact(jws, externals: [inner]) == plain)
        #expect(JWSCompaction.expand(plain.body, externals: [inner]) { plain.headers[$0] } == jws)
        // Without the stray byte, the same inner payload is referred to.
        let cleanPayload = payload.replacingOccurrences(of: "\u{1}0", with: "ok")
        let cleanJWS = nested + "." + Base64.encode(Data(cleanPayload.utf8), alphabet: .url) + ".c2lnbmF0dXJl"
        let referred = try #require(JWSCompaction.compact(cleanJWS, externals: [inner]))
        #expect(referred.body.count < (try #require(JWSCompaction.compact(cleanJWS))).body.count)
        #expect(JWSCompaction.expand(referred.body, externals: [inner]) { referred.headers[$0] } == cleanJWS)
    }

    /// Random payloads whose nested JWS carry random inner payloads (any bytes, of any length from
    /// 1 to 200, so some too short to refer to), given as externals: each form comes back byte for
    /// byte with its externals, refers to them only when no 0x01 is in the way, and without them
    /// gives nothing.
    @Test func randomNestedPayloadsComeBackExactly() throws {
        var generator = SystemRandomNumberGenerator()
        let symbols = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        let outer = "eyJ" + String(decoding: (0..<400).map { _ in symbols.randomElement(using: &generator)! }, as: UTF8.self)
        var referred = 0
        for _ in 0..<300 {
            let inners = (0..<2).map { _ in
                Data((0..<Int.random(in: 1...200, using: &generator)).map { _ in UInt8.random(in: 0...0xFF, using: &generator) })
            }
            var payload = #"{"data":{"#
            for (index, inner) in inners.enumerated() {
                payload += #""n\#(index)":"\#(outer).\#(Base64.encode(inner, alphabet: .url)).c2ln","#
            }
            payload += #""x":"\#(Bool.random(using: &generator) ? "\u{1}" : "")"}}"#
            let jws = outer + "." + Base64.encode(Data(payload.utf8), alphabet: .url) + ".c2lnbmF0dXJl"
            let externals: [Data?] = Bool.random(using: &generator) ? inners : [inners[0], nil]
            let compact = try #require(JWSCompaction.compact(jws, externals: externals))
            let expanded = try #require(JWSCompaction.expand(compact.body, externals: externals) { compact.headers[$0] })
            #expect(expanded.utf8.elementsEqual(jws.utf8))
            if compact.body.first == 1 {
                referred += 1
                #expect(!payload.utf8.contains(1))
                #expect(JWSCompaction.expand(compact.body) { compact.headers[$0] } == nil)
            } else {
                #expect(compact == JWSCompaction.compact(jws))
            }
        }
        #expect(referred > 50)
    }

    /// A damaged form (any byte changed, cut short, or references cut in the middle) expands to
    /// nil or to some text, and never reads past its bytes.
    @Test func damagedFormsNeverReadPastTheirBytes() throws {
        let (jws, transaction, renewal) = try Self.notification()
        let compact = try #require(JWSCompaction.compact(jws, externals: [transaction, renewal]))
        var generator = SystemRandomNumberGenerator()
        let special: [UInt8] = [0, 1, UInt8(ascii: "."), UInt8(ascii: "0"), UInt8(ascii: "9"), UInt8(ascii: "a")]
        for _ in 0..<3000 {
            var body = compact.body
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let at = body.index(body.startIndex, offsetBy: Int.random(in: 0..<body.count, using: &generator))
                body[at] = Bool.random(using: &generator) ? special.randomElement(using: &generator)! : UInt8.random(in: 0...0xFF)
            }
            if Bool.random(using: &generator) { body = body.prefix(Int.random(in: 0...body.count, using: &generator)) }
            _ = JWSCompaction.expand(body, externals: [transaction, renewal]) { compact.headers[$0] }
        }
    }
}
