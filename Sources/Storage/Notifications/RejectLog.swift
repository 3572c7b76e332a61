import JSON

/// One refused request (for example a payload whose signature did not verify).
public struct Reject: Sendable, Equatable {
    /// The app the request was addressed to.
    public var appId: String
    /// The verification status, in Apple's naming (`verificationFailure`, `invalidCertificate`, …).
    public var status: String
    /// Details for the operator.
    public var reason: String
    /// When it happened, in milliseconds since 1970.
    public var at: Int64

    /// The longest reason kept (bytes of UTF-8); a longer one is cut, so the log's size stays
    /// bounded whatever a client sends.
    public static let maximumReasonLength = 1000

    /// Creates a reject entry; `reason` is cut to `maximumReasonLength` bytes. A NUL, which the
    /// sender's text may hold and PostgreSQL text cannot, becomes U+FFFD in every field.
    public init(appId: String, status: String, reason: String, at: Int64) {
        func storable(_ text: some StringProtocol) -> String {
            text.contains("\u{0}") ? text.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}") : String(text)
        }
        self.appId = storable(appId.utf8Prefix(maxBytes: 200))
        self.status = storable(status.utf8Prefix(maxBytes: 100))
        self.reason = storable(reason.utf8Truncated(maxBytes: Self.maximumReasonLength))
        self.at = at
    }
}

/// The bounded reject log: counts since the database was created, and the most recent entries.
public struct RejectLog: Sendable, Equatable {
    /// How many rejects were recorded, by status.
    public var counts: [String: Int]
    /// The newest rejects first, at most `RejectLog.recentLimit`.
    public var recent: [Reject]

    /// How many recent rejects the store keeps.
    public static let recentLimit = 100

    /// Creates a log.
    public init(counts: [String: Int], recent: [Reject]) {
        self.counts = counts
        self.recent = recent
    }
}
