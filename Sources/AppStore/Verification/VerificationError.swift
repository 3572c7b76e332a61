/// Why a signed App Store payload was not accepted, named as Apple's libraries name it.
///
/// https://github.com/apple/app-store-server-library-python (`VerificationStatus`)
public struct VerificationError: Error, Equatable, CustomStringConvertible, Sendable {
    public enum Status: String, Sendable, CaseIterable {
        /// The bundle ID or (in Production) the app Apple ID does not match the configuration.
        case invalidAppIdentifier
        /// The payload's environment is not one the configuration accepts.
        case invalidEnvironment
        /// `x5c` does not hold exactly three certificates.
        case invalidChainLength
        /// The leaf or intermediate certificate is not base64 DER.
        case invalidCertificate
        /// Anything else: malformed JWS, wrong algorithm, untrusted chain, missing marker OID,
        /// expired certificate, bad signature.
        case verificationFailure
        /// A check that may pass later (online revocation checks); the caller should retry.
        case retryableVerificationFailure
    }

    public var status: Status
    /// What exactly failed, for logs and the reject log; never shown as a status. At most
    /// `maximumDetailLength` bytes of UTF-8: it may quote what a client sent (an `alg` value, a
    /// field), and the reject log keeps it, so an unauthenticated client must not choose its size.
    public var detail: String
    /// Whether the payload failed only because a number in it is outside the range RevenueDot
    /// believes (`PayloadNumber`), whether or not its signature was checked yet: Apple's libraries
    /// would not refuse it for that, and a verifier that skips the ranges may still find it Apple's.
    public var isImplausibleNumber = false

    /// The longest `detail` kept; the rest is replaced by a note of how much was cut.
    public static let maximumDetailLength = 500

    public init(_ status: Status, _ detail: String) {
        self.status = status
        self.detail = Self.bounded(detail)
    }

    /// `text` cut to `maximumDetailLength` bytes of UTF-8, saying so.
    static func bounded(_ text: String) -> String {
        guard text.utf8.count > maximumDetailLength else { return text }
        let kept = text.utf8Prefix(maxBytes: maximumDetailLength - 40)
        return "\(kept)… (\(text.utf8.count - kept.utf8.count) more bytes cut)"
    }

    public var description: String { "\(status.rawValue): \(detail)" }

    /// The same error with a location prefixed to its detail (`data.signedTransactionInfo: ...`).
    func at(_ location: String) -> VerificationError {
        var located = VerificationError(status, "\(location): \(detail)")
        located.isImplausibleNumber = isImplausibleNumber
        return located
    }
}
