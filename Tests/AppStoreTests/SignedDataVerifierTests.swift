import AppStore
import AppStoreFixtures
import Crypto
import Foundation
import Testing

@Suite("SignedDataVerifier: signature and chain")
struct SignedDataVerifierTests {
    let now = Fixtures.now

    @Test func validNotificationVerifiesWithNestedObjects() throws {
        let json = try Fixtures.notificationJSON()
        let verified = try Fixtures.verifier().verifyNotification(try Fixtures.sign(json), now: now)
        let payload = verified.notification.payload
        #expect(payload.notificationType == .didRenew)
        #expect(payload.notificationUUID == json["notificationUUID"] as? String)
        #expect(payload.data?.bundleId == Fixtures.bundleId)
        #expect(payload.data?.environment == .sandbox)
        #expect(verified.transaction?.payload.transactionId == "2000000000000002")
        #expect(verified.transaction?.payload.price == 9990)
        #expect(verified.renewalInfo?.payload.autoRenewProductId == "pro.yearly")
        #expect(verified.notification.isSignedByAppStore)
    }

    @Test func tamperedPayloadIsRejected() throws {
        let signed = try Fixtures.signedNotification()
        var parts = signed.split(separator: ".").map(String.init)
        var json = try Fixtures.notificationJSON()
        json["notificationType"] = "REFUND"
        parts[1] = Base64.encode(try JSONSerialization.data(withJSONObject: json), alphabet: .url)
        expectRejected(.verificationFailure) {
            _ = try Fixtures.verifier().verifyNotification(parts.joined(separator: "."), now: now)
        }
    }

    @Test func tamperedSignatureIsRejected() throws {
        let signed = try Fixtures.signedNotification()
        var parts = signed.split(separator: ".").map(String.init)
        var signature = Base64.decode(parts[2], alphabet: .url)!
        signature[10] ^= 0x01
        parts[2] = Base64.encode(signature, alphabet: .url)
        expectRejected(.verificationFailure) {
            _ = try Fixtures.verifier().verifyNotification(parts.joined(separator: "."), now: now)
        }
    }

    @Test func signatureOfWrongLengthIsRejected() throws {
        var parts = try Fixtures.signedNotification().split(separator: ".").map(String.init)
        parts[2] = Base64.encode(Base64.decode(parts[2], alphabet: .url)!.prefix(63), alphabet: .url)
        expectRejected(.verificationFailure) {
            _ = try Fixtures.verifier().verifyNotification(parts.joined(separator: "."), now: now)
        }
    }

    @Test func chainToAnotherRootIsRejected() throws {
        let signed = try Fixtures.signedNotification(chain: Fixtures.otherChain)
        let detail = expectRejected(.verificationFailure) { _ = try Fixtures.verifier().verifyNotification(signed, now: now) }
        #expect(detail?.contains("certificate chain") == true)
    }

    @Test func selfSuppliedRootInX5cIsNeverTrusted() throws {
        // An attacker's chain whose x5c[2] is the attacker's root: only configured roots count.
        let attacker = try TestChain(now: now, name: "Attacker")
        let payload = try Fixtures.notificationJSON(chain: attacker)
        let signed = try Fixtures.sign(payload, with: attacker)
        expectRejected(.verificationFailure) { _ = try Fixtures.verifier().verifyNotification(signed, now: now) }
    }

    @Test(arguments: [TestChain.Variant.leafWithoutOID, .intermediateWithoutOID])
    func chainWithoutAppleMarkerOIDIsRejected(variant: TestChain.Variant) throws {
        let chain = try TestChain(variant: variant, now: now)
        let signed = try Fixtures.sign(try Fixtures.notificationJSON(chain: chain), with: chain)
        let detail = expectRejected(.verificationFailure) {
            _ = try Fixtures.verifier(roots: [chain.root]).verifyNotification(signed, now: now)
        }
        #expect(detail?.contains("marker OID") == true)
    }

    @Test(arguments: [2, 4])
    func chainOfWrongLengthIsRejected(length: Int) throws {
        let chain = Fixtures.chain
        let certificates = [chain.leaf, chain.intermediate, chain.root, chain.root].prefix(length).map(Fixtures.base64)
        let signed = try Fixtures.jws(header: ["alg": "ES256", "x5c": certificates], payload: try Fixtures.notificationJSON())
        expectRejected(.invalidChainLength) { _ = try Fixtures.verifier().verifyNotification(signed, now: now) }
    }

    @Test(arguments: ["none", "HS256", "ES384", "es256", ""])
    func algorithmOtherThanES256IsRejected(alg: String) throws {
        let signed = try Fixtures.jws(header: ["alg": alg, "x5c": Fixtures.chain.x5c], payload: try Fixtures.notificationJSON())
        let detail = expectRejected(.verificationFailure) { _ = try Fixtures.verifier().verifyNotification(signed, now: now) }
        #expect(detail?.contains("alg") == true)
    }

    /// A header naming `alg` twice, signed by a genuine leaf: JSONDecoder would read the first
    /// value and Apple's Python library the last, so neither is taken.
    @Test func repeatedHeaderNamesAreRejected() throws {
        let x5c = try JSONSerialization.data(withJSONObject: Fixtures.chain.x5c)
        let header = Data(#"{"alg":"ES256","alg":"none","x5c":"#.utf8) + x5c + Data("}".utf8)
        let payload = try JSONSerialization.data(withJSONObject: try Fixtures.notificationJSON())
        let input = Base64.encode(header, alphabet: .url) + "." + Base64.encode(payload, alphabet: .url)
        let signed = input + "." + Base64.encode(try Fixtures.chain.leafKey.signRaw(Array(input.utf8)), alphabet: .url)
        let detail = expectRejected(.verificationFailure) { _ = try Fixtures.verifier().verifyNotification(signed, now: now) }
        #expect(detail == "the JWS header names alg more than once")
    }

    @Test func missingAlgorithmIsRejected() throws {
        let signed = try Fixtures.jws(header: ["x5c": Fixtures.chain.x5c], payload: try Fixtures.notificationJSON())
        expectRejected(.verificationFailure) { _ = try Fixtures.verifier().verifyNotification(signed, now: now) }
    }

    @Test func x5cMissingOrMalformed() throws {
        let payload = try Fixtures.notificationJSON()
        let chain = Fixtures.chain
        let cases: [([String: Any], VerificationError.Status)] = [
            (["alg": "ES256"], .verificationFailure),
            (["alg": "ES256", "x5cwrong": chain.x5c], .verificationFailure),
            (["alg": "ES256", "x5c": chain.x5c.joined(separator: ",")], .verificationFailure),
            (["alg": "ES256", "x5c": [String]()], .verificationFailure),
            (["alg": "ES256", "x5c": ["not base64!", chain.x5c[1], chain.x5c[2]]], .invalidCertificate),
            (["alg": "ES256", "x5c": [chain.x5c[0], "%%%%", chain.x5c[2]]], .invalidCertificate),
            (
                ["alg": "ES256", "x5c": [Base64.encode(Data("abc".utf8), alphabet: .standard), chain.x5c[1], chain.x5c[2]]],
                .invalidCertificate
            ),
            (
                [
                    "alg": "ES256",
                    "x5c": [chain.x5c[0], Base64.encode(Data(repeating: 0x30, count: 40), alphabet: .standard), chain.x5c[2]],
                ], .invalidCertificate
            ),
            (["alg": "ES256", "x5c": [42, chain.x5c[1], chain.x5c[2]]], .invalidCertificate),
            // A certificate followed by extra bytes is not one DER certificate.
            (
                [
                    "alg": "ES256",
                    "x5c": [Base64.encode(chain.leaf.der + Data([0]), alphabet: .standard), chain.x5c[1], chain.x5c[2]],
                ], .invalidCertificate
            ),
        ]
        for (header, status) in cases {
            let signed = try Fixtures.jws(header: header, payload: payload)
            expectRejected(status) { _ = try Fixtures.verifier(cache: nil).verifyNotification(signed, now: now) }
        }
    }

    @Test func x5cRootIsIgnoredEvenWhenGarbage() throws {
        // Apple never trusts x5c[2]; a wrong third entry does not matter.
        let chain = Fixtures.chain
        let signed = try Fixtures.jws(
            header: ["alg": "ES256", "x5c": [chain.x5c[0], chain.x5c[1], "garbage"]], payload: try Fixtures.notificationJSON())
        let verified = try Fixtures.verifier().verifyNotification(signed, now: now)
        #expect(verified.notification.payload.notificationType == .didRenew)
    }

    @Test func leafExpiredAtSignedDateIsRejected() throws {
        let chain = try TestChain(variant: .expiredLeaf, now: now)
        let signed = try Fixtures.sign(try Fixtures.notificationJSON(chain: chain), with: chain)
        let detail = expectRejected(.verificationFailure) {
            _ = try Fixtures.verifier(roots: [chain.root]).verifyNotification(signed, now: now)
        }
        #expect(detail?.contains("expired") == true)
    }

    @Test func leafValidAtSignedDateButExpiredTodayIsAccepted() throws {
        // Signed 60 days ago, when the leaf (expired 30 days ago) was still valid.
        let chain = try TestChain(variant: .expiredLeaf, now: now)
        let then = Fixtures.nowMs - 60 * 86_400_000
        let json = try Fixtures.notificationJSON(
            signedDate: then, chain: chain,
            transaction: Fixtures.transactionJSON(signedDate: then), renewal: Fixtures.renewalJSON(signedDate: then))
        let verified = try Fixtures.verifier(roots: [chain.root]).verifyNotification(
            try Fixtures.sign(json, with: chain), now: now)
        #expect(verified.notification.payload.signedDate == then)
    }

    @Test func payloadWithoutSignedDateIsJudgedNow() throws {
        let chain = try TestChain(variant: .expiredLeaf, now: now)
        let signed = try Fixtures.sign(Fixtures.transactionJSON(signedDate: nil), with: chain)
        expectRejected(.verificationFailure) {
            _ = try Fixtures.verifier(roots: [chain.root]).verifyTransaction(signed, now: now)
        }
        // The same payload checked at a moment when the leaf was valid passes.
        _ = try Fixtures.verifier(roots: [chain.root]).verifyTransaction(signed, now: now.addingTimeInterval(-60 * 86_400))
    }

    @Test func notYetValidLeafIsRejected() throws {
        let chain = try TestChain(variant: .notYetValidLeaf, now: now)
        let signed = try Fixtures.sign(try Fixtures.notificationJSON(chain: chain), with: chain)
        expectRejected(.verificationFailure) {
            _ = try Fixtures.verifier(roots: [chain.root]).verifyNotification(signed, now: now)
        }
    }

    @Test(arguments: ["", ".", "..", "a.b", "a.b.c.d", "not a jws at all", "e30.e30.e30", "...."])
    func garbageInputIsRejected(input: String) throws {
        expectRejected(.verificationFailure) { _ = try Fixtures.verifier().verifyNotification(input, now: now) }
    }

    @Test func truncatedInputIsRejected() throws {
        let signed = try Fixtures.signedNotification()
        for length in [1, 20, signed.count / 2, signed.count - 1] {
            expectRejected(.verificationFailure) {
                _ = try Fixtures.verifier().verifyNotification(String(signed.prefix(length)), now: now)
            }
        }
    }

    @Test func payloadThatIsNotJSONIsRejected() throws {
        let chain = Fixtures.chain
        let signed = try chain.sign(payload: Data("not json".utf8))
        expectRejected(.verificationFailure) { _ = try Fixtures.verifier().verifyNotification(signed, now: now) }
    }

    @Test func unknownTypeAndFieldsVerifyAndKeepRawValue() throws {
        var json = try Fixtures.notificationJSON(type: "SOMETHING_NEW_2027")
        json["subtype"] = "BRAND_NEW_SUBTYPE"
        json["futureField"] = ["nested": true]
        var data = json["data"] as! [String: Any]
        data["environment"] = "Sandbox"
        data["anotherFutureField"] = 12
        json["data"] = data
        let verified = try Fixtures.verifier().verifyNotification(try Fixtures.sign(json), now: now)
        let payload = verified.notification.payload
        #expect(payload.notificationType == .unknown("SOMETHING_NEW_2027"))
        #expect(payload.notificationType?.rawValue == "SOMETHING_NEW_2027")
        #expect(payload.subtype?.rawValue == "BRAND_NEW_SUBTYPE")
        let raw = try JSONSerialization.jsonObject(with: verified.notification.json) as? [String: Any]
        #expect(raw?["futureField"] != nil)
    }

    @Test func nestedTransactionIsVerifiedToo() throws {
        var json = try Fixtures.notificationJSON()
        var data = json["data"] as! [String: Any]
        data["signedTransactionInfo"] = try Fixtures.sign(Fixtures.transactionJSON(), with: Fixtures.otherChain)
        json["data"] = data
        let detail = expectRejected(.verificationFailure) {
            _ = try Fixtures.verifier().verifyNotification(try Fixtures.sign(json), now: now)
        }
        #expect(detail?.hasPrefix("data.signedTransactionInfo") == true)
    }

    @Test func nestedRenewalInfoIsVerifiedToo() throws {
        var json = try Fixtures.notificationJSON()
        var data = json["data"] as! [String: Any]
        data["signedRenewalInfo"] = "garbage"
        json["data"] = data
        let detail = expectRejected(.verificationFailure) {
            _ = try Fixtures.verifier().verifyNotification(try Fixtures.sign(json), now: now)
        }
        #expect(detail?.hasPrefix("data.signedRenewalInfo") == true)
    }

    @Test func headerChecksComeBeforeThePayloadInApplesOrder() throws {
        // Each case also has a payload that is not JSON: the header's own status still wins.
        func jws(_ header: [String: Any]) throws -> String {
            let input =
                Base64.encode(try JSONSerialization.data(withJSONObject: header), alphabet: .url) + "."
                + Base64.encode(Data("not json".utf8), alphabet: .url)
            return input + "." + Base64.encode(try Fixtures.chain.leafKey.signRaw(Array(input.utf8)), alphabet: .url)
        }
        let chain = Fixtures.chain
        expectRejected(.verificationFailure) {
            _ = try Fixtures.verifier().verifyNotification(try jws(["alg": "HS256", "x5c": chain.x5c]), now: now)
        }
        expectRejected(.invalidChainLength) {
            _ = try Fixtures.verifier().verifyNotification(
                try jws(["alg": "ES256", "x5c": Array(chain.x5c.prefix(2))]), now: now)
        }
        let notDER = Base64.encode(Data("abc".utf8), alphabet: .standard)
        expectRejected(.invalidCertificate) {
            _ = try Fixtures.verifier().verifyNotification(
                try jws(["alg": "ES256", "x5c": [notDER, chain.x5c[1], chain.x5c[2]]]), now: now)
        }
        let detail = expectRejected(.verificationFailure) {
            _ = try Fixtures.verifier().verifyNotification(try jws(["alg": "ES256", "x5c": chain.x5c]), now: now)
        }
        #expect(detail?.contains("payload") == true)
    }
}
