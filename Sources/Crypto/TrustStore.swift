import COpenSSL

/// A set of trusted root certificates that X.509 chains are verified against with OpenSSL.
///
/// Verification uses `X509_V_FLAG_X509_STRICT` at a given time, less the checks in
/// `profileOnlyErrors`: every signature, validity period, CA flag, path length, key usage
/// present, named curve and the rest of strict mode still applies. Only the roots given here are
/// trust anchors; no partial chains are accepted.
package final class TrustStore: @unchecked Sendable {
    /// The `X509_STORE *` this object owns; OpenSSL locks it internally for concurrent use.
    private let handle: OpaquePointer
    package let roots: [Certificate]

    package init(roots: [Certificate]) throws(OpenSSLError) {
        guard let store = X509_STORE_new() else { throw OpenSSLError("X509_STORE_new") }
        handle = store
        self.roots = roots
        for root in roots {
            try checkOne(X509_STORE_add_cert(store, root.handle), "X509_STORE_add_cert")
        }
    }

    deinit { X509_STORE_free(handle) }

    /// The result of a chain verification.
    package enum Outcome {
        /// The chain is leaf → intermediate → `root`, valid at the time given.
        case trusted(root: Certificate)
        /// OpenSSL rejected the chain; the reason is OpenSSL's text.
        case rejected(String)
    }

    /// Verifies that `leaf` chains through exactly `intermediate` to one of the roots, with
    /// every certificate valid at `time` (seconds since 1970).
    package func verify(leaf: Certificate, intermediate: Certificate, at time: Int64) -> Outcome {
        guard let context = X509_STORE_CTX_new(), let untrusted = COpenSSL_sk_X509_new_null() else {
            return .rejected(OpenSSLError("X509_STORE_CTX_new").description)
        }
        defer {
            COpenSSL_sk_X509_free(untrusted)
            X509_STORE_CTX_free(context)
        }
        guard COpenSSL_sk_X509_push(untrusted, intermediate.handle) > 0,
            X509_STORE_CTX_init(context, handle, leaf.handle, untrusted) == 1
        else { return .rejected(OpenSSLError("X509_STORE_CTX_init").description) }
        X509_STORE_CTX_set_flags(context, UInt(X509_V_FLAG_X509_STRICT))
        X509_STORE_CTX_set_verify_cb(context, TrustStore.forgivingProfileOnlyErrors)
        X509_STORE_CTX_set_time(context, 0, time_t(time))

        guard X509_verify_cert(context) == 1 else {
            let code = X509_STORE_CTX_get_error(context)
            ERR_clear_error()
            return .rejected(Self.reason(code))
        }
        // The chain OpenSSL built must be exactly leaf, the given intermediate, and a root.
        guard let chain = X509_STORE_CTX_get0_chain(context), COpenSSL_sk_X509_num(chain) == 3,
            let built = COpenSSL_sk_X509_value(chain, 1), X509_cmp(built, intermediate.handle) == 0,
            let anchor = COpenSSL_sk_X509_value(chain, 2),
            let root = roots.first(where: { X509_cmp($0.handle, anchor) == 0 })
        else { return .rejected("the chain is not leaf, intermediate and a configured root") }
        return .trusted(root: root)
    }

    /// OpenSSL's reason for a chain refused because a certificate's validity has not begun.
    package static let notYetValidReason = reason(X509_V_ERR_CERT_NOT_YET_VALID)
    /// OpenSSL's reason for a chain refused because a certificate's validity has ended.
    package static let expiredReason = reason(X509_V_ERR_CERT_HAS_EXPIRED)

    private static func reason(_ code: Int32) -> String {
        String(cString: X509_verify_cert_error_string(Int(code)))
    }

    /// Strict-mode findings about how a certificate is written rather than what it allows:
    /// missing key identifiers (AKI, SKI), a CA's basic constraints not marked critical, a CA
    /// with no key usage extension, and the path length such a CA states. Apple's own test
    /// chain has all of them, and Apple's Swift, Java and Node libraries accept it; Apple's
    /// production chain has none of them. What they would protect (a CA flag, a path length, a
    /// key usage that is present) is checked anyway: without key usage a CA may sign, as RFC 5280
    /// reads it, and a path length without keyCertSign is enforced all the same.
    package static let profileOnlyErrors: Set<Int32> = [
        X509_V_ERR_MISSING_AUTHORITY_KEY_IDENTIFIER, X509_V_ERR_MISSING_SUBJECT_KEY_IDENTIFIER,
        X509_V_ERR_CA_BCONS_NOT_CRITICAL, X509_V_ERR_CA_CERT_MISSING_KEY_USAGE,
        X509_V_ERR_PATHLEN_WITHOUT_KU_KEY_CERT_SIGN,
    ]

    /// OpenSSL's verify callback: goes on past `profileOnlyErrors`, stops at anything else.
    private static let forgivingProfileOnlyErrors: @convention(c) (Int32, OpaquePointer?) -> Int32 = { ok, context in
        if ok == 1 { return 1 }
        guard let context else { return 0 }
        return profileOnlyErrors.contains(X509_STORE_CTX_get_error(context)) ? 1 : 0
    }
}
