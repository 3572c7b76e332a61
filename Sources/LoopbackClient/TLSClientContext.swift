import COpenSSL

/// The TLS settings every connection to one receiver shares: an OpenSSL `SSL_CTX` for clients,
/// freed on deinit.
///
/// - TLS 1.2 or later (`TLS_client_method` with a minimum version).
/// - The server's certificate must chain to a trusted root (`SSL_VERIFY_PEER`): the CA
///   certificates in `caFile` when given, else the system's store (OpenSSL's default paths,
///   which Debian's `ca-certificates` fills; `SSL_CERT_FILE` and `SSL_CERT_DIR` override them).
/// - Each connection also checks that the certificate names the host it connected to
///   (`TLSStream`).
/// - A server that closes without TLS's close_notify ends the stream like a TCP close (many
///   HTTP servers do): a body read to the close could then be cut short unnoticed, which only
///   a response without `Content-Length` or chunked framing risks.
///
/// `@unchecked Sendable`: the context is set up in `init` and never changed after, and OpenSSL
/// lets threads create connections from one context at once.
public final class TLSClientContext: @unchecked Sendable {
    let handle: OpaquePointer

    /// A context trusting the certificates in `caFile` (PEM, one or more), or the system's
    /// store when nil.
    public init(caFile: String? = nil) throws(LoopbackClientError) {
        guard let handle = SSL_CTX_new(TLS_client_method()) else { throw TLSFailure.error("SSL_CTX_new") }
        self.handle = handle
        guard COpenSSL_SSL_CTX_set_min_proto_version(handle, TLS1_2_VERSION) == 1 else {
            throw TLSFailure.error("SSL_CTX_set_min_proto_version")
        }
        SSL_CTX_set_verify(handle, SSL_VERIFY_PEER, nil)
        COpenSSL_SSL_CTX_ignoreUnexpectedEOF(handle)
        if let caFile {
            guard SSL_CTX_load_verify_locations(handle, caFile, nil) == 1 else {
                throw TLSFailure.error("Cannot load CA certificates from \(caFile)")
            }
        } else {
            guard SSL_CTX_set_default_verify_paths(handle) == 1 else {
                throw TLSFailure.error("Cannot load the system's CA certificates")
            }
        }
    }

    deinit {
        SSL_CTX_free(handle)
    }
}
