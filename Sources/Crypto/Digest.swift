import COpenSSL
import Foundation

/// SHA-256 and HMAC-SHA256 from OpenSSL.
public enum Digest {
    /// The SHA-256 hash of `data`.
    public static func sha256(_ data: some ContiguousBytes) -> [UInt8] {
        digest(data, sha256Implementation.md ?? EVP_sha256(), name: "SHA-256")
    }

    /// The SHA-1 hash of `data`: only for name-based UUIDs (RFC 9562 version 5), never for security.
    public static func sha1(_ data: some ContiguousBytes) -> [UInt8] {
        digest(data, sha1Implementation.md ?? EVP_sha1(), name: "SHA-1")
    }

    /// A digest implementation fetched from OpenSSL's default provider once. Given the legacy
    /// `EVP_sha1()`, OpenSSL 3 looks the implementation up again on every digest (name map, locks),
    /// which costs more than hashing the few dozen bytes of an event id. A fetched `EVP_MD` is
    /// immutable and safe to use from any thread; it lives as long as the process.
    private final class Fetched: @unchecked Sendable {
        package let md: OpaquePointer?
        package init(_ name: String) { md = EVP_MD_fetch(nil, name, nil) }
    }

    private static let sha1Implementation = Fetched("SHA1")
    private static let sha256Implementation = Fetched("SHA256")

    private static func digest(_ data: some ContiguousBytes, _ type: OpaquePointer?, name: String) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = data.withUnsafeBytes { bytes in
            EVP_Digest(bytes.baseAddress, bytes.count, &output, &length, type, nil)
        }
        precondition(ok == 1, "EVP_Digest(\(name)) cannot fail on valid input")
        return Array(output.prefix(Int(length)))
    }

    /// The HMAC-SHA256 of `data` keyed by `key`.
    public static func hmacSHA256(key: some ContiguousBytes, data: some ContiguousBytes) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withUnsafeBytes { keyBytes in
            data.withUnsafeBytes { dataBytes in
                HMAC(
                    EVP_sha256(), keyBytes.baseAddress, Int32(keyBytes.count),
                    dataBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), dataBytes.count, &output, &length)
            }
        }
        precondition(result != nil, "HMAC-SHA256 cannot fail on valid input")
        return Array(output.prefix(Int(length)))
    }

    /// Lower-case hexadecimal text of bytes.
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
