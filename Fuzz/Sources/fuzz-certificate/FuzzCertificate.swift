import AppStore
import Crypto
import Foundation
import FuzzSupport

/// Certificate parsing (DER and PEM through OpenSSL), and a parsed certificate as the root, the
/// intermediate and the leaf of a chain the verifier checks.
///
/// Beyond not crashing: a certificate keeps exactly the DER it was parsed from, and its PEM
/// parses back to it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzCertificate.test(Data(UnsafeRawBufferPointer(fuzzInput: data, count: size)))
    return 0
}

@main
enum FuzzCertificate {
    static func main() { FuzzDriver.main(fuzzOneInput) }

    static let verifier = try! FuzzChain.verifier()
    static let signed = FuzzChain.sign(FuzzChain.transactionJSON)

    static func test(_ data: Data) {
        _ = try? Certificate.parse(pemOrDER: data)
        guard let certificate = try? Certificate(der: data) else { return }
        precondition(certificate.der == data, "the certificate does not keep its DER")
        _ = certificate.isValid(at: FuzzChain.nowMs / 1000)
        _ = certificate.isSelfSignedCA
        _ = certificate.hasExtension(oid: SignedDataVerifier.leafMarkerOID)
        _ = certificate.subject
        guard let parsed = try? Certificate.parsePEM(certificate.pem), parsed == [certificate] else {
            fatalError("the certificate's PEM does not parse back to it")
        }

        let base64 = Base64.encode(data, alphabet: .standard)
        let chain = FuzzChain.chain.x5c
        if let asRoot = try? FuzzChain.verifier(roots: [certificate]) {
            _ = try? asRoot.verifyTransaction(signed, now: FuzzChain.now)
        }
        let asLeaf = FuzzChain.sign(FuzzChain.transactionJSON, x5c: [base64, chain[1], chain[2]])
        _ = try? verifier.verifyTransaction(asLeaf, now: FuzzChain.now)
        let asIntermediate = FuzzChain.sign(FuzzChain.transactionJSON, x5c: [chain[0], base64, chain[2]])
        _ = try? verifier.verifyTransaction(asIntermediate, now: FuzzChain.now)
    }
}
