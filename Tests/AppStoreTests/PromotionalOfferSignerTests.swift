import Crypto
import Foundation
import Testing

@testable import AppStore

@Suite("Promotional offer signatures")
struct PromotionalOfferSignerTests {
    static let key: ECPrivateKey = try! ECPrivateKey(generating: .p256)
    static let nonce = UUID(uuidString: "D3C7F2A4-1B2C-4D5E-8F90-0123456789AB")!

    /// Apple's payload, spelled out: seven fields joined by U+2063 (UTF-8 E2 81 A3), the
    /// username and nonce lowercased, the timestamp in milliseconds.
    @Test func thePayloadIsApplesFieldsInApplesOrder() {
        let signer = PromotionalOfferSigner(key: Self.key, keyId: "KEY123ABCD", bundleId: "com.example.app")
        let payload = signer.payload(
            productId: "pro.monthly", offerId: "WINBACK50", applicationUsername: "A1B2C3D4-0000-4000-8000-00000000CAFE",
            nonce: Self.nonce, timestampMs: 1_765_000_000_123)
        let separator: [UInt8] = [0xE2, 0x81, 0xA3]
        let expected = [
            "com.example.app", "KEY123ABCD", "pro.monthly", "WINBACK50", "a1b2c3d4-0000-4000-8000-00000000cafe",
            "d3c7f2a4-1b2c-4d5e-8f90-0123456789ab", "1765000000123",
        ].map { Array($0.utf8) }.joined(separator: separator)
        #expect(Array(payload) == Array(expected))
        // No username: an empty field between its separators.
        let anonymous = signer.payload(
            productId: "p", offerId: "o", applicationUsername: "", nonce: Self.nonce, timestampMs: 1)
        #expect(String(decoding: anonymous, as: UTF8.self).components(separatedBy: "\u{2063}")[4] == "")
    }

    /// The signature is Base64 of an ECDSA DER signature over the payload, which the key's
    /// public half verifies and which fails for any other field.
    @Test func theSignatureVerifiesOverThePayloadOnly() throws {
        let signer = PromotionalOfferSigner(key: Self.key, keyId: "KEY123ABCD", bundleId: "com.example.app")
        let signed = try signer.sign(
            productId: "pro.monthly", offerId: "WINBACK50", applicationUsername: "user-7", at: 1_765_000_000_123,
            nonce: Self.nonce)
        #expect(signed.nonce == Self.nonce && signed.timestampMs == 1_765_000_000_123)
        let der = try #require(Base64.decode(signed.signature, alphabet: .standard))
        #expect(der.first == 0x30, "a DER SEQUENCE")
        let publicKey = try Self.key.publicKey()
        let message = signer.payload(
            productId: "pro.monthly", offerId: "WINBACK50", applicationUsername: "USER-7", nonce: Self.nonce,
            timestampMs: 1_765_000_000_123)
        #expect(publicKey.verify(derSignature: Array(der), message: message))
        let otherOffer = signer.payload(
            productId: "pro.monthly", offerId: "WINBACK60", applicationUsername: "user-7", nonce: Self.nonce,
            timestampMs: 1_765_000_000_123)
        #expect(!publicKey.verify(derSignature: Array(der), message: otherOffer))
        // A fresh nonce per signature unless one is given.
        let first = try signer.sign(productId: "p", offerId: "o", applicationUsername: "", at: 1)
        let second = try signer.sign(productId: "p", offerId: "o", applicationUsername: "", at: 1)
        #expect(first.nonce != second.nonce)
    }
}
