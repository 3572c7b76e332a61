import COpenSSL
import Foundation

/// An EC public key on P-256 or P-384 that verifies ECDSA signatures.
public final class ECPublicKey: @unchecked Sendable {
    /// The `EVP_PKEY *` this object owns. OpenSSL 3 allows concurrent verifies with one key.
    package let handle: OpaquePointer
    package let curve: ECCurve

    /// Takes ownership of an `EVP_PKEY *`; a key that is not EC on P-256 or P-384 is an error.
    package init(taking key: OpaquePointer) throws(OpenSSLError) {
        guard let curve = ECCurve.of(key) else {
            EVP_PKEY_free(key)
            throw OpenSSLError("EVP_PKEY_get_group_name", reason: "not an EC key on P-256 or P-384")
        }
        self.handle = key
        self.curve = curve
    }

    deinit { EVP_PKEY_free(handle) }

    /// Verifies a JOSE signature (raw R‖S) over `message` with the curve's digest.
    /// Any malformed signature is simply false.
    package func verify(rawSignature: some ContiguousBytes, message: some ContiguousBytes) -> Bool {
        guard let der = ECDSASignature.der(fromRaw: rawSignature, coordinateSize: curve.coordinateSize) else {
            return false
        }
        return verify(derSignature: der, message: message)
    }

    /// Verifies a DER-encoded ECDSA signature over `message` with the curve's digest.
    package func verify(derSignature: [UInt8], message: some ContiguousBytes) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, curve.digest, nil, handle) == 1 else {
            ERR_clear_error()
            return false
        }
        let result = message.withUnsafeBytes { messageBytes in
            derSignature.withUnsafeBufferPointer { signature in
                EVP_DigestVerify(
                    context, signature.baseAddress, signature.count,
                    messageBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), messageBytes.count)
            }
        }
        if result != 1 { ERR_clear_error() }
        return result == 1
    }
}
