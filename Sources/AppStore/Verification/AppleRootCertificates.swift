import Foundation

/// The trust anchors App Store signed data chains to, shipped inside the package.
///
/// https://www.apple.com/certificateauthority/
public enum AppleRootCertificates {
    /// SHA-256 of the DER of Apple Root CA - G3, as Apple publishes it.
    public static let appleRootCAG3SHA256 = "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179"

    /// Apple Root CA - G3, read from the package's resource and checked against its fingerprint.
    public static func appleRootCAG3() throws -> Certificate {
        guard let url = Bundle.module.url(forResource: "AppleRootCA-G3", withExtension: "pem") else {
            throw OpenSSLError("Bundle.module", reason: "AppleRootCA-G3.pem is missing from the package resources")
        }
        let pem = try String(contentsOf: url, encoding: .utf8)
        guard let root = try Certificate.parsePEM(pem).first,
            Digest.hex(Digest.sha256(root.der)) == appleRootCAG3SHA256
        else {
            throw OpenSSLError("AppleRootCA-G3.pem", reason: "the bundled root does not have Apple's fingerprint")
        }
        return root
    }
}
