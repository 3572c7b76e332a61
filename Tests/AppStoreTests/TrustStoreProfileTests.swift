import Crypto
import Foundation
import Testing

@testable import AppStore

/// Which strict X.509 findings the chain check forgives (how Apple's test certificates are
/// written) and which it never does (what a certificate may do).
@Suite("Chain checks: profile against authority")
struct TrustStoreProfileTests {
    /// How one certificate of a root → intermediate → leaf chain is written.
    struct Profile {
        var basicConstraints: String
        var keyUsage: String
        var keyIdentifiers = false
    }

    /// Apple's test chain as its certificates are written: no key identifiers, basic constraints
    /// not critical, an intermediate with no key usage but a path length.
    static let applesTestProfile = (
        root: Profile(basicConstraints: "CA:TRUE", keyUsage: "critical,keyCertSign,cRLSign"),
        intermediate: Profile(basicConstraints: "CA:TRUE,pathlen:0", keyUsage: ""),
        leaf: Profile(basicConstraints: "CA:FALSE", keyUsage: "critical,digitalSignature")
    )

    static let now: Int64 = 1_761_962_975

    func outcome(
        root: Profile = applesTestProfile.root, intermediate: Profile = applesTestProfile.intermediate,
        leaf: Profile = applesTestProfile.leaf, leafSignedByRoot: Bool = false
    ) throws -> TrustStore.Outcome {
        let (rootKey, intermediateKey, leafKey) = (
            try ECPrivateKey(generating: .p384), try ECPrivateKey(generating: .p384), try ECPrivateKey(generating: .p256)
        )
        func builder(_ name: String, _ profile: Profile) -> CertificateBuilder {
            CertificateBuilder(
                subjectCommonName: name, notBefore: Self.now - 86_400, notAfter: Self.now + 86_400,
                basicConstraints: profile.basicConstraints, keyUsage: profile.keyUsage,
                includeKeyIdentifiers: profile.keyIdentifiers)
        }
        let rootCertificate = try builder("Root", root).build(key: rootKey, issuer: nil, issuerKey: rootKey)
        let intermediateCertificate = try builder("Intermediate", intermediate)
            .build(key: intermediateKey, issuer: rootCertificate, issuerKey: rootKey)
        let leafCertificate = try builder("Leaf", leaf)
            .build(
                key: leafKey, issuer: intermediateCertificate, issuerKey: leafSignedByRoot ? rootKey : intermediateKey)
        return try TrustStore(roots: [rootCertificate])
            .verify(leaf: leafCertificate, intermediate: intermediateCertificate, at: Self.now)
    }

    func isTrusted(_ outcome: TrustStore.Outcome) -> Bool {
        if case .trusted = outcome { return true }
        return false
    }

    func reason(_ outcome: TrustStore.Outcome) -> String? {
        if case .rejected(let reason) = outcome { return reason }
        return nil
    }

    @Test func applesTestProfileIsTrusted() throws {
        #expect(isTrusted(try outcome()))
    }

    @Test func theFullProfileIsTrusted() throws {
        let full = (
            root: Profile(basicConstraints: "critical,CA:TRUE", keyUsage: "critical,keyCertSign,cRLSign", keyIdentifiers: true),
            intermediate: Profile(
                basicConstraints: "critical,CA:TRUE,pathlen:0", keyUsage: "critical,keyCertSign,cRLSign", keyIdentifiers: true),
            leaf: Profile(basicConstraints: "critical,CA:FALSE", keyUsage: "critical,digitalSignature", keyIdentifiers: true)
        )
        #expect(isTrusted(try outcome(root: full.root, intermediate: full.intermediate, leaf: full.leaf)))
    }

    /// Every row is something strict mode refuses for what the certificate may do: each is
    /// still refused, whatever the profile forgives.
    @Test(arguments: [
        ("an intermediate that is not a CA", Profile(basicConstraints: "CA:FALSE", keyUsage: ""), "invalid CA certificate"),
        ("an intermediate with no basic constraints", Profile(basicConstraints: "", keyUsage: ""), "invalid CA certificate"),
        (
            "an intermediate whose key usage leaves out keyCertSign",
            Profile(basicConstraints: "CA:TRUE", keyUsage: "critical,digitalSignature"), "invalid CA certificate"
        ),
    ])
    func anIntermediateThatMayNotSignIsRefused(_ row: (String, Profile, String)) throws {
        let reason = reason(try outcome(intermediate: row.1))
        #expect(reason != nil, "\(row.0) was trusted")
        #expect(reason?.localizedCaseInsensitiveContains(row.2) ?? false, "\(row.0): \(reason ?? "")")
    }

    @Test func aRootPathLengthIsEnforced() throws {
        let root = Profile(basicConstraints: "CA:TRUE,pathlen:0", keyUsage: "critical,keyCertSign")
        let reason = reason(try outcome(root: root))
        #expect(reason?.contains("path length") ?? false, "\(reason ?? "trusted")")
    }

    @Test func aLeafNotSignedByTheIntermediateIsRefused() throws {
        #expect(!isTrusted(try outcome(leafSignedByRoot: true)))
    }

    /// OpenSSL's codes (x509_vfy.h): 85 missing AKI, 86 missing SKI, 89 CA basic constraints not
    /// critical, 92 CA without key usage, 81 path length without keyCertSign.
    @Test func onlyProfileFindingsAreForgiven() {
        #expect(TrustStore.profileOnlyErrors == [81, 85, 86, 89, 92])
    }
}
