import Crypto
import Foundation

/// The trust anchors App Store signed data chains to, compiled into the binary.
///
/// The certificate is part of the code, not a package resource: SwiftPM finds a resource bundle
/// beside the executable or at the absolute path of the build that made it, so a binary copied
/// to another directory or machine (an install, a container image) would stop at start (SwiftPM's
/// module bundle accessor: "could not load resource bundle") once that build is gone.
///
/// https://www.apple.com/certificateauthority/
public enum AppleRootCertificates {
    /// SHA-256 of the DER of Apple Root CA - G3, as Apple publishes it.
    public static let appleRootCAG3SHA256 = "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179"

    /// Apple Root CA - G3 (https://www.apple.com/certificateauthority/AppleRootCA-G3.cer), in PEM.
    static let appleRootCAG3PEM = """
        -----BEGIN CERTIFICATE-----
        MIICQzCCAcmgAwIBAgIILcX8iNLFS5UwCgYIKoZIzj0EAwMwZzEbMBkGA1UEAwwS
        QXBwbGUgUm9vdCBDQSAtIEczMSYwJAYDVQQLDB1BcHBsZSBDZXJ0aWZpY2F0aW9u
        IEF1dGhvcml0eTETMBEGA1UECgwKQXBwbGUgSW5jLjELMAkGA1UEBhMCVVMwHhcN
        MTQwNDMwMTgxOTA2WhcNMzkwNDMwMTgxOTA2WjBnMRswGQYDVQQDDBJBcHBsZSBS
        b290IENBIC0gRzMxJjAkBgNVBAsMHUFwcGxlIENlcnRpZmljYXRpb24gQXV0aG9y
        aXR5MRMwEQYDVQQKDApBcHBsZSBJbmMuMQswCQYDVQQGEwJVUzB2MBAGByqGSM49
        AgEGBSuBBAAiA2IABJjpLz1AcqTtkyJygRMc3RCV8cWjTnHcFBbZDuWmBSp3ZHtf
        TjjTuxxEtX/1H7YyYl3J6YRbTzBPEVoA/VhYDKX1DyxNB0cTddqXl5dvMVztK517
        IDvYuVTZXpmkOlEKMaNCMEAwHQYDVR0OBBYEFLuw3qFYM4iapIqZ3r6966/ayySr
        MA8GA1UdEwEB/wQFMAMBAf8wDgYDVR0PAQH/BAQDAgEGMAoGCCqGSM49BAMDA2gA
        MGUCMQCD6cHEFl4aXTQY2e3v9GwOAEZLuN+yRhHFD/3meoyhpmvOwgPUnPWTxnS4
        at+qIxUCMG1mihDK1A3UT82NQz60imOlM27jbdoXt2QfyFMm+YhidDkLF1vLUagM
        6BgD56KyKA==
        -----END CERTIFICATE-----
        """

    /// Apple Root CA - G3, checked against its published fingerprint.
    public static func appleRootCAG3() throws -> Certificate {
        guard let root = try Certificate.parsePEM(appleRootCAG3PEM).first,
            Digest.hex(Digest.sha256(root.der)) == appleRootCAG3SHA256
        else {
            throw OpenSSLError("Apple Root CA - G3", reason: "the built-in root does not have Apple's fingerprint")
        }
        return root
    }
}
