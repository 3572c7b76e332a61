import COpenSSL

/// OpenSSL's process-wide state, kept until the process ends.
public enum OpenSSLLifetime {
    /// Tells OpenSSL not to free its global state in an `atexit` handler. Call it first, before
    /// any other OpenSSL call (the first initialization decides).
    ///
    /// `exit` runs that handler on the calling thread while other threads (a storage writer, a
    /// libpq connection, a webhook worker) may still be in OpenSSL, or end afterwards and run
    /// its thread-local destructors over freed state: a command that had finished its work then
    /// crashed on the way out. The kernel frees the memory at exit anyway.
    public static func keepStateUntilExit() {
        _ = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil)
    }
}
