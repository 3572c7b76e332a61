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

    public init(_ kind: Kind, endpoint: String, attempts: Int = 1) {
        self.kind = kind
        self.endpoint = endpoint
        self.attempts = attempts
    }

    /// Apple's error code, when Apple answered with one.
    public var code: APIErrorCode? {
        if case .api(_, let code, _) = kind { return code }
        return nil
    }

    /// Whether Apple said it knows no such transaction (or that the id is not one): the answer
    /// to "not found", as opposed to a failure to ask.
    public var isUnknownTransaction: Bool {
        code == .transactionIdNotFound || code == .originalTransactionIdNotFound || code == .invalidTransactionId
    }

    /// The HTTP status, when Apple answered.
    public var status: Int? {
        if case .api(let status, _, _) = kind { return status }
        return nil
    }

    public var description: String {
        let tries = attempts > 1 ? " (after \(attempts) attempts)" : ""
        switch kind {
        case .api(let status, let code, let message):
            let named = code.map { " \($0)" } ?? ""
            let said = message.map { ": \($0)" } ?? ""
            return "\(endpoint): Apple answered \(status)\(named)\(said)\(tries)"
        case .noAnswer(let reason): return "\(endpoint): no answer from Apple: \(reason)\(tries)"
        case .invalidAnswer(let reason): return "\(endpoint): Apple's answer is not valid: \(reason)"
        case .verification(let error): return "\(endpoint): a signed object in Apple's answer did not verify: \(error)"
        case .configuration(let reason): return "\(endpoint): \(reason)"
        }
    }
}
