import COpenSSL
import Foundation

/// An X.509 certificate parsed by OpenSSL; immutable once made, so it is safe to share.
public final class Certificate: @unchecked Sendable {
    /// The `X509 *` this object owns.
    package let handle: OpaquePointer
    /// The exact DER bytes the certificate was parsed from or encoded to.
    public let der: Data

    /// Parses one DER certificate; trailing bytes after the certificate are an error.
    public init(der: Data) throws(OpenSSLError) {
        let parsed: (OpaquePointer?, Int) = der.withUnsafeBytes { raw in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return (nil, 0) }
            var cursor: UnsafePointer<UInt8>? = base
            let cert = d2i_X509(nil, &cursor, raw.count)
            return (cert, cursor.map { $0 - base } ?? 0)
        }
        guard let cert = parsed.0 else { throw OpenSSLError("d2i_X509") }
        guard parsed.1 == der.count else {
            X509_free(cert)
            throw OpenSSLError("d2i_X509", reason: "\(der.count - parsed.1) bytes after the certificate")
        }
        self.handle = cert
        self.der = der
    }

    /// Takes ownership of an `X509 *` (used by the certificate builder).
    package init(taking cert: OpaquePointer) throws(OpenSSLError) {
        let length = i2d_X509(cert, nil)
        guard length > 0 else {
            X509_free(cert)
            throw OpenSSLError("i2d_X509")
        }
        var bytes = Data(count: Int(length))
        bytes.withUnsafeMutableBytes { raw in
            var cursor = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
            _ = i2d_X509(cert, &cursor)
        }
        self.handle = cert
        self.der = bytes
    }

    deinit { X509_free(handle) }

    /// Every certificate in a PEM text, in order. Text without any certificate is an error.
    public static func parsePEM(_ pem: String) throws(OpenSSLError) -> [Certificate] {
        var certificates: [Certificate] = []
        for block in PEM.blocks(in: pem, label: "CERTIFICATE") {
            certificates.append(try Certificate(der: block))
        }
        guard !certificates.isEmpty else {
            throw OpenSSLError("PEM", reason: "no \"BEGIN CERTIFICATE\" block")
        }
        return certificates
    }

    /// Every certificate in a file's bytes: PEM text with one or more, or one in DER.
    public static func parse(pemOrDER data: Data) throws(OpenSSLError) -> [Certificate] {
        if let text = String(data: data, encoding: .utf8), text.contains("-----BEGIN CERTIFICATE-----") {
            return try parsePEM(text)
        }
        return [try Certificate(der: data)]
    }

    /// The certificate as PEM text.
    public var pem: String { PEM.encode(der, label: "CERTIFICATE") }

    /// The start of the validity window, in seconds since 1970.
    public var notBefore: Int64 { Self.seconds(X509_get0_notBefore(handle)) }
    /// The end of the validity window, in seconds since 1970.
    public var notAfter: Int64 { Self.seconds(X509_get0_notAfter(handle)) }

    /// Whether `time` (seconds since 1970) lies in the window, judged as OpenSSL judges it:
    /// `notBefore <= time < notAfter`.
    public func isValid(at time: Int64) -> Bool { notBefore <= time && time < notAfter }

    /// Whether this can anchor a chain: self-signed (the signature checked with its own key) and
    /// a CA by its basic constraints, as a root certificate is; an intermediate or a leaf is not.
    public var isSelfSignedCA: Bool { X509_self_signed(handle, 1) == 1 && X509_check_ca(handle) >= 1 }

    /// Whether the certificate carries an extension with this dotted OID.
    public func hasExtension(oid: String) -> Bool {
        guard let object = OBJ_txt2obj(oid, 1) else { return false }
        defer { ASN1_OBJECT_free(object) }
        return X509_get_ext_by_OBJ(handle, object, -1) >= 0
    }

    /// The subject as a one-line string, for messages.
    public var subject: String {
        guard let name = X509_get_subject_name(handle),
            let line = X509_NAME_oneline(name, nil, 0)
        else { return "?" }
        defer { COpenSSL_free(line) }
        return String(cString: line)
    }

    /// The subject public key, which must be an EC key.
    package func publicKey() throws(OpenSSLError) -> ECPublicKey {
        guard let key = X509_get_pubkey(handle) else { throw OpenSSLError("X509_get_pubkey") }
        return try ECPublicKey(taking: key)
    }

    private static func seconds(_ time: UnsafePointer<ASN1_TIME>?) -> Int64 {
        var parts = tm()
        guard let time, ASN1_TIME_to_tm(time, &parts) == 1 else { return 0 }
        return Int64(timegm(&parts))
    }
}

extension Certificate: Equatable {
    public static func == (lhs: Certificate, rhs: Certificate) -> Bool { lhs.der == rhs.der }
}
