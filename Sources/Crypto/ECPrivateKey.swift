import COpenSSL
import Foundation

/// An EC private key on P-256 or P-384: generated here, or read from PKCS#8 PEM such as the
/// `.p8` keys App Store Connect issues.
public final class ECPrivateKey: @unchecked Sendable {
    /// The `EVP_PKEY *` this object owns.
    package let handle: OpaquePointer
    public let curve: ECCurve

    /// Generates a fresh key on `curve`.
    public init(generating curve: ECCurve) throws(OpenSSLError) {
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nil) else { throw OpenSSLError("EVP_PKEY_CTX_new_id") }
        defer { EVP_PKEY_CTX_free(context) }
        try checkPositive(EVP_PKEY_keygen_init(context), "EVP_PKEY_keygen_init")
        try checkPositive(EVP_PKEY_CTX_set_ec_paramgen_curve_nid(context, curve.nid), "EVP_PKEY_CTX_set_ec_paramgen_curve_nid")
        var key: OpaquePointer?
        try checkPositive(EVP_PKEY_keygen(context, &key), "EVP_PKEY_keygen")
        guard let key else { throw OpenSSLError("EVP_PKEY_keygen") }
        self.handle = key
        self.curve = curve
    }

    /// Reads an unencrypted PKCS#8 (`BEGIN PRIVATE KEY`) or SEC1 (`BEGIN EC PRIVATE KEY`) PEM key.
    public init(pem: String) throws(OpenSSLError) {
        let bytes = Array(pem.utf8)
        let key: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let key else { throw OpenSSLError("PEM_read_bio_PrivateKey") }
        guard let curve = ECCurve.of(key) else {
            EVP_PKEY_free(key)
            throw OpenSSLError("PEM_read_bio_PrivateKey", reason: "not an EC key on P-256 or P-384")
        }
        self.handle = key
        self.curve = curve
    }

    deinit { EVP_PKEY_free(handle) }

    /// The key as unencrypted PKCS#8 PEM, the `.p8` format.
    public func pkcs8PEM() throws(OpenSSLError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw OpenSSLError("BIO_new") }
        defer { BIO_free(bio) }
        try checkOne(PEM_write_bio_PrivateKey(bio, handle, nil, nil, 0, nil, nil), "PEM_write_bio_PrivateKey")
        var pointer: UnsafeMutablePointer<CChar>?
        let length = COpenSSL_BIO_get_mem_data(bio, &pointer)
        guard let pointer, length > 0 else { throw OpenSSLError("BIO_get_mem_data") }
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
    }

    /// The matching public key.
    package func publicKey() throws(OpenSSLError) -> ECPublicKey {
        guard EVP_PKEY_up_ref(handle) == 1 else { throw OpenSSLError("EVP_PKEY_up_ref") }
        return try ECPublicKey(taking: handle)
    }

    /// Signs `message` with the curve's digest and returns the DER signature.
    package func signDER(_ message: some ContiguousBytes) throws(OpenSSLError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw OpenSSLError("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        try checkOne(EVP_DigestSignInit(context, nil, curve.digest, nil, handle), "EVP_DigestSignInit")
        let bytes = message.withUnsafeBytes { Array($0) }
        var length = 0
        try checkOne(EVP_DigestSign(context, nil, &length, bytes, bytes.count), "EVP_DigestSign")
        var signature = [UInt8](repeating: 0, count: length)
        try checkOne(EVP_DigestSign(context, &signature, &length, bytes, bytes.count), "EVP_DigestSign")
        return Array(signature.prefix(length))
    }

    /// Signs `message` and returns the JOSE raw R‖S signature.
    public func signRaw(_ message: some ContiguousBytes) throws(OpenSSLError) -> [UInt8] {
        let der = try signDER(message)
        guard let raw = ECDSASignature.raw(fromDER: der, coordinateSize: curve.coordinateSize) else {
            throw OpenSSLError("EVP_DigestSign", reason: "unexpected signature encoding")
        }
        return raw
    }
}
