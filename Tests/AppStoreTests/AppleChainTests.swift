import AppStoreFixtures
import Crypto
import Foundation
import Testing

@testable import AppStore

/// The built-in trust anchor against Apple's real, public signing chain.
@Suite("Apple's real chain")
struct AppleChainTests {
    /// Leaf and G6 intermediate from Apple's own library tests; the leaf was valid 2021-08-25 to 2023-09-24.
    static func realChain() throws -> (leaf: Certificate, intermediate: Certificate) {
        let url = try #require(Bundle.module.url(forResource: "Resources/apple-real-chain", withExtension: "pem"))
        let certificates = try Certificate.parsePEM(try String(contentsOf: url, encoding: .utf8))
        return (certificates[0], certificates[1])
    }

    @Test func builtInRootIsAppleRootCAG3() throws {
        let root = try AppleRootCertificates.appleRootCAG3()
        #expect(root.subject.contains("Apple Root CA - G3"))
        #expect(Digest.hex(Digest.sha256(root.der)) == AppleRootCertificates.appleRootCAG3SHA256)
    }

    @Test func realChainIsTrustedWithStrictChecksWhileTheLeafWasValid() throws {
        let (leaf, intermediate) = try Self.realChain()
        let store = try TrustStore(roots: [try AppleRootCertificates.appleRootCAG3()])
        guard case .trusted = store.verify(leaf: leaf, intermediate: intermediate, at: 1_681_312_846) else {
            Issue.record("Apple's real chain was rejected at its effective date")
            return
        }
        #expect(leaf.hasExtension(oid: SignedDataVerifier.leafMarkerOID))
        #expect(intermediate.hasExtension(oid: SignedDataVerifier.intermediateMarkerOID))
        #expect(!leaf.hasExtension(oid: SignedDataVerifier.intermediateMarkerOID))
        #expect(try leaf.publicKey().curve == .p256)
    }

    @Test func realChainIsRejectedAfterTheLeafExpiredAndUnderAnotherRoot() throws {
        let (leaf, intermediate) = try Self.realChain()
        let apple = try TrustStore(roots: [try AppleRootCertificates.appleRootCAG3()])
        if case .trusted = apple.verify(leaf: leaf, intermediate: intermediate, at: 1_793_491_200) {
            Issue.record("an expired leaf was trusted")
        }
        let test = try TrustStore(roots: [Fixtures.chain.root])
        if case .trusted = test.verify(leaf: leaf, intermediate: intermediate, at: 1_681_312_846) {
            Issue.record("Apple's chain was trusted under a test root")
        }
    }
}
