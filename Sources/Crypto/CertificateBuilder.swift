import COpenSSL
import Foundation

/// Builds X.509 v3 certificates with OpenSSL, for test chains and local development CAs.
package struct CertificateBuilder {
    package var subjectCommonName: String
    package var organization: String = "RevenueDot Test"
    package var notBefore: Int64
    package var notAfter: Int64
    /// `basicConstraints`, in OpenSSL's config syntax (`critical,CA:TRUE,pathlen:0`); empty for none.
    package var basicConstraints: String
    /// `keyUsage`, in OpenSSL's config syntax (`critical,digitalSignature`); empty for none.
    package var keyUsage: String
    /// Private extensions to add with an ASN.1 NULL value, by dotted OID (Apple's marker OIDs).
    package var markerOIDs: [String] = []
    package var includeKeyIdentifiers = true

    package init(
        subjectCommonName: String, organization: String = "RevenueDot Test", notBefore: Int64, notAfter: Int64,
        basicConstraints: String, keyUsage: String, markerOIDs: [String] = [], includeKeyIdentifiers: Bool = true
    ) {
        self.subjectCommonName = subjectCommonName
        self.organization = organization
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.basicConstraints = basicConstraints
        self.keyUsage = keyUsage
        self.markerOIDs = markerOIDs
        self.includeKeyIdentifiers = includeKeyIdentifiers
    }

    /// Signs a certificate for `key` with `issuerKey`; a nil `issuer` makes it self-signed.
    package func build(key: ECPrivateKey, issuer: Certificate?, issuerKey: ECPrivateKey) throws(OpenSSLError) -> Certificate {
        guard let cert = X509_new() else { throw OpenSSLError("X509_new") }
        do {
            try fill(cert, key: key, issuer: issuer, issuerKey: issuerKey)
        } catch {
            X509_free(cert)
            throw error
        }
        return try Certificate(taking: cert)
    }

    private func fill(_ cert: OpaquePointer, key: ECPrivateKey, issuer: Certificate?, issuerKey: ECPrivateKey)
        throws(OpenSSLError)
    {
        try checkOne(X509_set_version(cert, Int(X509_VERSION_3)), "X509_set_version")
        var serial = [UInt8](repeating: 0, count: 16)
        try checkOne(RAND_bytes(&serial, Int32(serial.count)), "RAND_bytes")
        serial[0] &= 0x7F
        serial[0] |= 0x01
        guard let serialNumber = BN_bin2bn(serial, Int32(serial.count), nil) else { throw OpenSSLError("BN_bin2bn") }
        defer { BN_free(serialNumber) }
        guard BN_to_ASN1_INTEGER(serialNumber, X509_get_serialNumber(cert)) != nil else {
            throw OpenSSLError("BN_to_ASN1_INTEGER")
        }
        guard ASN1_TIME_set(X509_getm_notBefore(cert), time_t(notBefore)) != nil,
            ASN1_TIME_set(X509_getm_notAfter(cert), time_t(notAfter)) != nil
        else { throw OpenSSLError("ASN1_TIME_set") }

        guard let name = X509_NAME_new() else { throw OpenSSLError("X509_NAME_new") }
        defer { X509_NAME_free(name) }
        try checkOne(
            X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, subjectCommonName, -1, -1, 0), "X509_NAME_add_entry_by_txt")
        try checkOne(X509_NAME_add_entry_by_txt(name, "O", MBSTRING_UTF8, organization, -1, -1, 0), "X509_NAME_add_entry_by_txt")
        try checkOne(X509_NAME_add_entry_by_txt(name, "C", MBSTRING_UTF8, "US", -1, -1, 0), "X509_NAME_add_entry_by_txt")
        try checkOne(X509_set_subject_name(cert, name), "X509_set_subject_name")
        try checkOne(
            X509_set_issuer_name(cert, issuer.map { X509_get_subject_name($0.handle) } ?? name), "X509_set_issuer_name")
        try checkOne(X509_set_pubkey(cert, key.handle), "X509_set_pubkey")

        var context = X509V3_CTX()
        COpenSSL_X509V3_set_ctx_nodb(&context)
        X509V3_set_ctx(&context, issuer?.handle ?? cert, cert, nil, nil, 0)
        if !basicConstraints.isEmpty { try addExtension(cert, &context, NID_basic_constraints, basicConstraints) }
        if !keyUsage.isEmpty { try addExtension(cert, &context, NID_key_usage, keyUsage) }
        if includeKeyIdentifiers {
            try addExtension(cert, &context, NID_subject_key_identifier, "hash")
            if issuer != nil { try addExtension(cert, &context, NID_authority_key_identifier, "keyid:always") }
        }
        for oid in markerOIDs { try addNullExtension(cert, oid: oid) }

        let digest = issuerKey.curve.digest
        try checkPositive(X509_sign(cert, issuerKey.handle, digest), "X509_sign")
    }

    private func addExtension(_ cert: OpaquePointer, _ context: inout X509V3_CTX, _ nid: Int32, _ value: String)
        throws(OpenSSLError)
    {
        guard let ext = X509V3_EXT_conf_nid(nil, &context, nid, value) else { throw OpenSSLError("X509V3_EXT_conf_nid") }
        defer { X509_EXTENSION_free(ext) }
        try checkOne(X509_add_ext(cert, ext, -1), "X509_add_ext")
    }

    /// Adds a non-critical extension whose value is DER NULL (`05 00`), as Apple's markers are.
    private func addNullExtension(_ cert: OpaquePointer, oid: String) throws(OpenSSLError) {
        guard let object = OBJ_txt2obj(oid, 1) else { throw OpenSSLError("OBJ_txt2obj") }
        defer { ASN1_OBJECT_free(object) }
        guard let value = ASN1_OCTET_STRING_new() else { throw OpenSSLError("ASN1_OCTET_STRING_new") }
        defer { ASN1_OCTET_STRING_free(value) }
        let null: [UInt8] = [0x05, 0x00]
        try checkOne(ASN1_OCTET_STRING_set(value, null, 2), "ASN1_OCTET_STRING_set")
        guard let ext = X509_EXTENSION_create_by_OBJ(nil, object, 0, value) else {
            throw OpenSSLError("X509_EXTENSION_create_by_OBJ")
        }
        defer { X509_EXTENSION_free(ext) }
        try checkOne(X509_add_ext(cert, ext, -1), "X509_add_ext")
    }
}
