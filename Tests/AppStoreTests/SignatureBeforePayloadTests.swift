import AppStore
import AppStoreFixtures
import Crypto
import Foundation
import Testing

/// With a chain cache the chain's trust and the signature are checked before the payload is
/// read: a forged body costs a signature check, not a parse. Outcomes and statuses stay those
/// of Apple's order (the verifier without a cache), only the reason of a payload failing
/// several checks may differ.
@Suite("SignedDataVerifier: the signature before the payload")
struct SignatureBeforePayloadTests {
    let now = Fixtures.now

    /// A JWS of `chain`'s header over `payload` bytes, signed by `chain`'s leaf, or with a zero
    /// signature.
    func jws(_ payload: Data, chain: TestChain = Fixtures.chain, signed: Bool = true) throws -> String {
        let genuine = try chain.sign(payload: payload)
        guard !signed else { return genuine }
        let parts = genuine.split(separator: ".")
        return parts[0] + "." + parts[1] + "." + Base64.encode(Data(count: 64), alphabet: .url)
    }

    /// "accepted", or the status and reason of the refusal.
    func outcome(_ verifier: SignedDataVerifier, _ signed: String) -> String {
        do {
            _ = try verifier.verifyNotification(signed, now: now)
            return "accepted"
        } catch {
            return "\(error.status.rawValue): \(error.detail)"
        }
    }

    @Test func aForgedPayloadUnderAGoodChainIsRefusedForItsSignatureUnread() throws {
        // Not JSON at all: read first, it would be refused as no notification.
        let forged = try jws(Data("not JSON {[".utf8), signed: false)
        let detail = expectRejected(.verificationFailure) {
            _ = try Fixtures.verifier().verifyNotification(forged, now: now)
        }
        #expect(detail == "the ES256 signature does not match the leaf certificate's key")
        // Apple's order reads the payload first.
        let full = expectRejected(.verificationFailure) {
            _ = try Fixtures.verifier(cache: nil).verifyNotification(forged, now: now)
        }
        #expect(full?.hasPrefix("the payload is not a valid") == true)
    }

    /// A header longer than any App Store signer's is refused before it is decoded, with or
    /// without a cache; one of App Store's size is read as before.
    @Test func anOversizedHeaderIsRefusedUndecoded() throws {
        let genuine = try jws(Data("{}".utf8)).split(separator: ".").map(String.init)
        #expect(genuine[0].utf8.count < 8_192)
        // A header that would decode (`alg`, x5c) padded with a member far beyond the limit.
        let padded = Base64.encode(
            Data(#"{"alg":"ES256","x5c":[],"pad":"\#(String(repeating: "a", count: 1 << 20))"}"#.utf8), alphabet: .url)
        let oversized = [padded, genuine[1], genuine[2]].joined(separator: ".")
        for verifier in [try Fixtures.verifier(), try Fixtures.verifier(cache: nil)] {
            let detail = expectRejected(.verificationFailure) { _ = try verifier.verifyNotification(oversized, now: now) }
            #expect(detail?.hasPrefix("the JWS header is \(padded.utf8.count) bytes") == true, "\(String(describing: detail))")
        }
    }

    /// The limit is the header segment's length: 32,768 bytes are decoded (and refused for
    /// what they hold), the next length base64url can have, 32,770, is not.
    @Test(arguments: [(24_576, false), (24_577, true)])
    func theHeaderLimitIsExact(jsonBytes: Int, refusedForSize: Bool) throws {
        let genuine = try jws(Data("{}".utf8)).split(separator: ".").map(String.init)
        let skeleton = #"{"alg":"ES256","pad":""}"#
        let json = #"{"alg":"ES256","pad":"\#(String(repeating: "a", count: jsonBytes - skeleton.utf8.count))"}"#
        let header = Base64.encode(Data(json.utf8), alphabet: .url)
        #expect(header.utf8.count == (refusedForSize ? 32_770 : 32_768))
        let signed = [header, genuine[1], genuine[2]].joined(separator: ".")
        let detail = expectRejected(.verificationFailure) { _ = try Fixtures.verifier().verifyNotification(signed, now: now) }
        #expect((detail?.hasPrefix("the JWS header is ") ?? false) == refusedForSize, "\(String(describing: detail))")
    }

    @Test func anUntrustedChainIsRefusedBeforeItsPayloadIsRead() throws {
        // Signed by its own leaf: only the chain is wrong, and the payload is not JSON.
        let signed = try jws(Data("not JSON {[".utf8), chain: Fixtures.otherChain)
        let cache = ChainCache()
        let detail = expectRejected(.verificationFailure) {
            _ = try Fixtures.verifier(cache: cache).verifyNotification(signed, now: now)
        }
        #expect(detail?.hasPrefix("certificate chain: ") == true, "\(detail ?? "")")
        #expect(cache.statistics.count == 0)
    }

    @Test func aLeafAndIntermediateThatNeverOverlapAreRefusedUnread() throws {
        // The intermediate expired before the leaf began: no time suits both.
        let base = Int64(now.timeIntervalSince1970)
        let day: Int64 = 86_400
        let chain = try TestChain(
            rootWindow: (base - 400 * day, base + 400 * day), intermediateWindow: (base - 300 * day, base - 100 * day),
            leafWindow: (base - 50 * day, base + 200 * day))
        let signed = try jws(Data("not JSON {[".utf8), chain: chain)
        let detail = expectRejected(.verificationFailure) {
            _ = try Fixtures.verifier(roots: [chain.root]).verifyNotification(signed, now: now)
        }
        #expect(detail == "certificate chain: the leaf's and the intermediate's validity never overlap")
    }

    @Test func aChainOutsideItsRootsWindowIsJudgedAtThePayloadsDateAsApplesOrderDoes() throws {
        // Leaf and intermediate overlap, but only after the root expired.
        let base = Int64(now.timeIntervalSince1970)
        let day: Int64 = 86_400
        let chain = try TestChain(
            rootWindow: (base - 400 * day, base - 200 * day), intermediateWindow: (base - 300 * day, base + 100 * day),
            leafWindow: (base - 50 * day, base + 200 * day))
        let signed = try Fixtures.signedNotification(chain: chain)
        let cache = ChainCache()
        let cached = outcome(try Fixtures.verifier(roots: [chain.root], cache: cache), signed)
        #expect(cached == outcome(try Fixtures.verifier(roots: [chain.root], cache: nil), signed))
        #expect(cached.hasPrefix("verificationFailure: certificate chain at "), "\(cached)")
        #expect(cache.statistics.count == 0)
    }

    /// Each kind of input has the same outcome and status with and without the cache, the cache
    /// cold and then warm. The reason differs where several checks fail, and an untrusted chain's
    /// is not dated (it fails at every time).
    @Test func outcomesAndStatusesAreApplesInEitherOrder() throws {
        let good = try Fixtures.signedNotification()
        let parts = good.split(separator: ".").map(String.init)
        let zeroSignature = Base64.encode(Data(count: 64), alphabet: .url)
        let inputs: [(name: String, jws: String, severalFail: Bool)] = [
            ("good", good, false),
            ("signature of another payload", parts[0] + "." + parts[1] + "." + zeroSignature, false),
            ("payload not JSON, signed", try jws(Data("[".utf8)), false),
            ("payload not JSON, forged", try jws(Data("[".utf8), signed: false), true),
            ("another root's chain", try Fixtures.signedNotification(chain: Fixtures.otherChain), true),
            ("dated after the chain expired", try Fixtures.signedNotification(signedDate: 4_000_000_000_000), false),
            (
                "dated after, forged",
                parts[0] + "."
                    + Base64.encode(
                        try JSONSerialization.data(withJSONObject: Fixtures.notificationJSON(signedDate: 4_000_000_000_000)),
                        alphabet: .url) + "." + zeroSignature, true
            ),
        ]
        let cached = try Fixtures.verifier(cache: ChainCache())
        let full = try Fixtures.verifier(cache: nil)
        for pass in ["cold", "warm"] {
            for input in inputs {
                let ours = outcome(cached, input.jws)
                let apples = outcome(full, input.jws)
                if input.severalFail {
                    #expect(ours.prefix(while: { $0 != ":" }) == apples.prefix(while: { $0 != ":" }), "\(input.name)")
                    #expect(ours != "accepted", "\(input.name), \(pass)")
                } else {
                    #expect(ours == apples, "\(input.name), \(pass)")
                }
            }
        }
        #expect(outcome(cached, good) == "accepted")
    }
}
