#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/objects.h>
#include <openssl/opensslv.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/sha.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

// OpenSSL's typed stacks (sk_X509_*) are function-like macros, which Swift does not import.
static inline STACK_OF(X509) *COpenSSL_sk_X509_new_null(void) { return sk_X509_new_null(); }
static inline int COpenSSL_sk_X509_push(STACK_OF(X509) *stack, X509 *cert) { return sk_X509_push(stack, cert); }
static inline int COpenSSL_sk_X509_num(const STACK_OF(X509) *stack) { return sk_X509_num(stack); }
static inline X509 *COpenSSL_sk_X509_value(const STACK_OF(X509) *stack, int index) { return sk_X509_value(stack, index); }
static inline void COpenSSL_sk_X509_free(STACK_OF(X509) *stack) { sk_X509_free(stack); }

// BIO_get_mem_data is a macro over BIO_ctrl.
static inline long COpenSSL_BIO_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }

// X509V3_set_ctx_nodb is a macro.
static inline void COpenSSL_X509V3_set_ctx_nodb(X509V3_CTX *ctx) { X509V3_set_ctx_nodb(ctx); }

// OPENSSL_free is a macro that records the caller's file and line.
static inline void COpenSSL_free(void *pointer) { OPENSSL_free(pointer); }

// SSL_CTX_set_min_proto_version is a macro over SSL_CTX_ctrl.
static inline int COpenSSL_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
    return (int)SSL_CTX_set_min_proto_version(ctx, version);
}

// SSL_OP_IGNORE_UNEXPECTED_EOF is built by the function-like macro SSL_OP_BIT, which Swift does
// not import.
static inline void COpenSSL_SSL_CTX_ignoreUnexpectedEOF(SSL_CTX *ctx) {
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
}

// SSL_set_tlsext_host_name (SNI) is a macro over SSL_ctrl.
static inline int COpenSSL_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

// BIO_set_retry_read, BIO_set_retry_write and BIO_clear_retry_flags are macros over BIO_set_flags
// and BIO_clear_flags.
static inline void COpenSSL_BIO_set_retry_read(BIO *bio) { BIO_set_retry_read(bio); }
static inline void COpenSSL_BIO_set_retry_write(BIO *bio) { BIO_set_retry_write(bio); }
static inline void COpenSSL_BIO_clear_retry_flags(BIO *bio) { BIO_clear_retry_flags(bio); }

#endif
