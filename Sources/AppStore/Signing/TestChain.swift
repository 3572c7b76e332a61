import Crypto
import Foundation

/// A certificate chain shaped like Apple's, made on the spot, for tests and local development.
///
/// Root (P-384, self-signed) → intermediate (P-384, carrying Apple's WWDR marker OID) → leaf
/// (P-256, carrying the receipt-signing marker OID), all with subject and authority key
/// identifiers so OpenSSL's strict X.509 checks pass exactly as they do for Apple's chain.
/// Variants break one thing each, to prove the verifier notices.
public struct TestChain: Sendable {
    public enum Variant: String, Sendable, CaseIterable {
        case valid
        /// The leaf lacks 1.2.840.113635.100.6.11.1.
        case leafWithoutOID
        /// The intermediate lacks 1.2.840.113635.100.6.2.1.
        case intermediateWithoutOID
        /// The leaf's validity ended 30 days before `now`.
        case expiredLeaf
        /// The leaf's validity starts 30 days after `now`.
        case notYetValidLeaf
    }

    public let root: Certificate
    public let intermediate: Certificate
    public let leaf: Certificate
    public let rootKey: ECPrivateKey
    public let intermediateKey: ECPrivateKey
    public let leafKey: ECPrivateKey

    private static let day: Int64 = 86_400

    /// Makes a chain around `now`: root valid ±10 years, intermediate ±5 years, leaf from
    /// 30 days ago for a year unless `variant` says otherwise.
    public init(variant: Variant = .valid, now: Date = Date(), name: String = "RevenueDot Test") throws {
        let now = Int64(now.timeIntervalSince1970)
        let leafWindow: (Int64, Int64) =
            switch variant {
            case .expiredLeaf: (now - 400 * Self.day, now - 30 * Self.day)
            case .notYetValidLeaf: (now + 30 * Self.day, now + 400 * Self.day)
            default: (now - 30 * Self.day, now + 365 * Self.day)
            }
        try self.init(
            name: name, rootWindow: (now - 3650 * Self.day, now + 3650 * Self.day),
            intermediateWindow: (now - 1825 * Self.day, now + 1825 * Self.day), leafWindow: leafWindow,
            leafOID: variant != .leafWithoutOID, intermediateOID: variant != .intermediateWithoutOID)
    }

    /// Makes a chain with explicit validity windows (seconds since 1970, `[notBefore, notAfter)`).
    public init(
        name: String = "RevenueDot Test", rootWindow: (Int64, Int64), intermediateWindow: (Int64, Int64),
        leafWindow: (Int64, Int64), leafOID: Bool = true, intermediateOID: Bool = true
    ) throws {
        rootKey = try ECPrivateKey(generating: .p384)
        intermediateKey = try ECPrivateKey(generating: .p384)
        leafKey = try ECPrivateKey(generating: .p256)
        root = try CertificateBuilder(
            subjectCommonName: "\(name) Root CA", notBefore: rootWindow.0, notAfter: rootWindow.1,
            basicConstraints: "critical,CA:TRUE", keyUsage: "critical,keyCertSign,cRLSign"
        ).build(key: rootKey, issuer: nil, issuerKey: rootKey)
        intermediate = try CertificateBuilder(
            subjectCommonName: "\(name) Intermediate CA", notBefore: intermediateWindow.0, notAfter: intermediateWindow.1,
            basicConstraints: "critical,CA:TRUE,pathlen:0", keyUsage: "critical,keyCertSign,cRLSign",
            markerOIDs: intermediateOID ? [SignedDataVerifier.intermediateMarkerOID] : []
        ).build(key: intermediateKey, issuer: root, issuerKey: rootKey)
        leaf = try CertificateBuilder(
            subjectCommonName: "\(name) Signing", notBefore: leafWindow.0, notAfter: leafWindow.1,
            basicConstraints: "critical,CA:FALSE", keyUsage: "critical,digitalSignature",
            markerOIDs: leafOID ? [SignedDataVerifier.leafMarkerOID] : []
        ).build(key: leafKey, issuer: intermediate, issuerKey: intermediateKey)
    }

    /// Loads a chain saved with `pemFiles()` (root, intermediate, leaf and their keys).
    public init(
        root: Certificate, intermediate: Certificate, leaf: Certificate, rootKey: ECPrivateKey, intermediateKey: ECPrivateKey,
        leafKey: ECPrivateKey
    ) {
        self.root = root
        self.intermediate = intermediate
        self.leaf = leaf
        self.rootKey = rootKey
        self.intermediateKey = intermediateKey
        self.leafKey = leafKey
    }

    /// The `x5c` header value: leaf, intermediate, root, standard base64 DER.
    public var x5c: [String] { [leaf, intermediate, root].map { Base64.encode($0.der, alphabet: .standard) } }

    /// An ES256 signer that puts this chain in `x5c`, as App Store does.
    public func signer() throws -> JWSSigner { try JWSSigner(key: leafKey, x5c: x5c) }

    /// Signs a payload as App Store would, with this chain.
    public func sign(_ value: some Encodable) throws -> String { try signer().sign(value) }

    /// Signs JSON bytes as App Store would, with this chain.
    public func sign(payload: Data) throws -> String { try signer().sign(payload: payload) }
}
