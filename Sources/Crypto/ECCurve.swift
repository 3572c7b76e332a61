import COpenSSL

/// The NIST curves App Store signing uses: P-256 for leaf keys and ES256, P-384 for Apple's
/// root and intermediate.
public enum ECCurve: String, Sendable, CaseIterable {
    case p256 = "prime256v1"
    case p384 = "secp384r1"

    package var nid: Int32 { self == .p256 ? NID_X9_62_prime256v1 : NID_secp384r1 }

    /// The size in bytes of one coordinate, and of R and S in a raw signature.
    package var coordinateSize: Int { self == .p256 ? 32 : 48 }

    /// The digest JOSE and X.509 pair with this curve (SHA-256 for P-256, SHA-384 for P-384).
    package var digest: OpaquePointer { self == .p256 ? EVP_sha256() : EVP_sha384() }

    /// The curve of an `EVP_PKEY`, or nil when it is not an EC key on one of these curves.
    package static func of(_ key: OpaquePointer) -> ECCurve? {
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC else { return nil }
        var name = [CChar](repeating: 0, count: 64)
        guard EVP_PKEY_get_group_name(key, &name, name.count, nil) == 1 else { return nil }
        return ECCurve(rawValue: String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
}
