import AppStore

/// Why an App Store Server API call did not give an answer to use: one line, naming the call.
public struct AppStoreServerAPIError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable, Equatable {
        /// Apple answered with an error: the HTTP status, and Apple's code and message when the
        /// body held them.
        case api(status: Int, code: APIErrorCode?, message: String?)
        /// No answer: the connection failed or the deadline passed.
        case noAnswer(String)
        /// An answer that is not what Apple sends (not JSON, a missing member).
        case invalidAnswer(String)
        /// A signed object in the answer did not verify: nothing of the answer is used.
        case verification(VerificationError)
        /// The call cannot be made as configured (a base URL, a key).
        case configuration(String)
    }

    public var kind: Kind
    /// The call, by its command-line name (`transaction-history`).
    public var endpoint: String
    /// Attempts made, retries included.
    public var attempts: Int
    /// How long Apple asked to wait before the next call (a 429's `Retry-After`), when it said.
    public var retryAfterSeconds: Double?

    public init(_ kind: Kind, endpoint: String, attempts: Int = 1, retryAfterSeconds: Double? = nil) {
        self.kind = kind
        self.endpoint = endpoint
        self.attempts = attempts
        self.retryAfterSeconds = retryAfterSeconds
    }

    /// Apple's error code, when Apple answered with one.
    public var code: APIErrorCode? {
        if case .api(_, let code, _) = kind { return code }
        return nil
    }

    /// Whether Apple said it knows no such transaction (or that the id is not one, or no account
    /// it belongs to, in the environment asked): the answer to "not found", as opposed to a
    /// failure to ask.
    public var isUnknownTransaction: Bool {
        code == .transactionIdNotFound || code == .originalTransactionIdNotFound || code == .invalidTransactionId
            || code == .accountNotFound
    }

    /// Whether Apple did not find the account for now, and says to ask again later
    /// (AccountNotFoundRetryableError): another environment may still know it.
    public var isAccountNotFoundForNow: Bool { code == .accountNotFoundRetryable }

    /// The HTTP status, when Apple answered.
    public var status: Int? {
        if case .api(let status, _, _) = kind { return status }
        return nil
    }

    /// Whether any call would fail alike for now, whatever it asks: Apple not answering,
    /// failing (5xx), limiting the rate past the retries (429), refusing the key (401, 403), or
    /// not finding the app for now (4040004). A run over many calls stops on one instead of
    /// making them all. Apple's other retryable codes are about one id (an account or a
    /// transaction not found yet): the next call may well succeed.
    public var failsEveryCall: Bool {
        switch kind {
        case .noAnswer: return true
        case .api(let status, let code, _):
            return status >= 500 || [401, 403, 429].contains(status) || code == APIErrorCode(4_040_004)
        default: return false
        }
    }

    public var description: String {
        let tries = attempts > 1 ? " (after \(attempts) attempts)" : ""
        switch kind {
        case .api(let status, let code, let message):
            let named = code.map { " \($0)" } ?? ""
            let said = message.map { ": \($0)" } ?? ""
            // Apple's 401 has no body: say what it checks.
            let hint =
                status == 401
                ? " (Apple refused the token: check inAppPurchaseKey's keyId, issuerId and key file, the app's bundleId, and this machine's clock)"
                : ""
            // A long Retry-After (a 429 can ask for hours) says when trying again is worth it.
            let wait = retryAfterSeconds.map { " (Apple asks to wait \(Int($0.rounded(.up))) s before trying again)" } ?? ""
            return "\(endpoint): Apple answered \(status)\(named)\(said)\(tries)\(wait)\(hint)"
        case .noAnswer(let reason): return "\(endpoint): no answer from Apple: \(reason)\(tries)"
        case .invalidAnswer(let reason): return "\(endpoint): Apple's answer is not valid: \(reason)"
        case .verification(let error): return "\(endpoint): a signed object in Apple's answer did not verify: \(error)"
        case .configuration(let reason): return "\(endpoint): \(reason)"
        }
    }
}
