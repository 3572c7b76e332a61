import COpenSSL
import Foundation

extension ECPublicKey {
    /// Reads a `BEGIN PUBLIC KEY` (SubjectPublicKeyInfo) PEM key on P-256 or P-384.
    public convenience init(pem: String) throws(OpenSSLError) {
        let bytes = Array(pem.utf8)
        let key: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PUBKEY(bio, nil, nil, nil)
        }
        guard let key else { throw OpenSSLError("PEM_read_bio_PUBKEY") }
        try self.init(taking: key)
    }

    /// The key as `BEGIN PUBLIC KEY` PEM.
    public func pem() throws(OpenSSLError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw OpenSSLError("BIO_new") }
        defer { BIO_free(bio) }
        try checkOne(PEM_write_bio_PUBKEY(bio, handle), "PEM_write_bio_PUBKEY")
        var pointer: UnsafeMutablePointer<CChar>?
        let length = COpenSSL_BIO_get_mem_data(bio, &pointer)
        guard let pointer, length > 0 else { throw OpenSSLError("BIO_get_mem_data") }
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
    }

    /// Whether `jws` (compact serialization, ES256 or ES384 by the key's curve) carries a valid
    /// signature by this key: how Apple checks a token signed with an In-App Purchase key.
    public func verifiesJWS(_ jws: String) -> Bool {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let signature = Base64.decode(parts[2], alphabet: .url) else { return false }
        return verify(rawSignature: signature, message: Data("\(parts[0]).\(parts[1])".utf8))
    }
}

extension ECPrivateKey {
    /// The public half, as `BEGIN PUBLIC KEY` PEM: what App Store Connect keeps of a key.
    public func publicKeyPEM() throws(OpenSSLError) -> String { try publicKey().pem() }
}
