import AppStoreFixtures
import Crypto
import Foundation
import Testing

@testable import AppStore

@Suite("JWSSigner and TestChain")
struct JWSSignerTests {
    @Test func p8KeyRoundTripsAndSignsVerifiableES256() throws {
        let pem = try ECPrivateKey(generating: .p256).pkcs8PEM()
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let signer = try JWSSigner(p8: pem, keyId: "ABC123", type: "JWT")
        let token = try signer.sign(payload: Data(#"{"iss":"issuer","aud":"appstoreconnect-v1"}"#.utf8))
        let parts = token.split(separator: ".")
        #expect(parts.count == 3)
        let header = try JSONSerialization.jsonObject(with: Base64.decode(parts[0], alphabet: .url)!) as! [String: Any]
        #expect(header["alg"] as? String == "ES256")
        #expect(header["kid"] as? String == "ABC123")
        #expect(header["typ"] as? String == "JWT")
        let signature = Base64.decode(parts[2], alphabet: .url)!
        #expect(signature.count == 64)
        let input = Array(token[..<token.lastIndex(of: ".")!].utf8)
        #expect(try signer.key.publicKey().verify(rawSignature: signature, message: input))
        var wrong = input
        wrong[0] ^= 1
        #expect(try !signer.key.publicKey().verify(rawSignature: signature, message: wrong))
    }

    @Test func p384KeyIsNotAnES256Signer() throws {
        #expect(throws: ConfigurationError.self) { _ = try JWSSigner(key: try ECPrivateKey(generating: .p384)) }
        #expect(throws: OpenSSLError.self) {
            _ = try JWSSigner(p8: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        }
    }

    @Test func testChainLooksLikeApples() throws {
        let chain = Fixtures.chain
        #expect(chain.root.hasExtension(oid: "2.5.29.14"))  // subject key identifier
        #expect(chain.intermediate.hasExtension(oid: "2.5.29.35"))  // authority key identifier
        #expect(chain.intermediate.hasExtension(oid: SignedDataVerifier.intermediateMarkerOID))
        #expect(chain.leaf.hasExtension(oid: SignedDataVerifier.leafMarkerOID))
        #expect(try chain.leaf.publicKey().curve == .p256)
        #expect(try chain.intermediate.publicKey().curve == .p384)
        #expect(chain.x5c.count == 3)
        let reparsed = try Certificate.parsePEM(chain.root.pem + chain.intermediate.pem)
        #expect(reparsed == [chain.root, chain.intermediate])
    }

    @Test func ecdsaSignatureConversionRoundTrips() throws {
        let key = try ECPrivateKey(generating: .p256)
        for index in 0..<50 {
            let message = Array("message \(index)".utf8)
            let der = try key.signDER(message)
            let raw = try #require(ECDSASignature.raw(fromDER: der, coordinateSize: 32))
            #expect(raw.count == 64)
            #expect(ECDSASignature.der(fromRaw: raw, coordinateSize: 32) == der)
        }
    }
}
