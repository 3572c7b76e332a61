/// A moment at which the clock must be fed back in for one subscription.
///
/// The shell keeps at most one pending timer per subscription (`id`): a new `.schedule` replaces
/// the previous one. At or after `fireAtMs` it applies `.timerFired(timer)`; firing early, late,
/// twice, or after the subscription renewed is harmless, since the reducer decides from the
/// state, not from the timer, with one exception: a timer scheduled for the end of access (as
/// builds without the renewal-notice wait did) keeps that time (`SubscriptionState.expire`).
public struct ExpirationTimer: Codable, Hashable, Sendable {
    /// The subscription to feed the clock to.
    public var originalTransactionId: String
    /// UNIX milliseconds: when the EXPIRATION is due (the end of access, grace period included,
    /// plus any wait for a renewal notice).
    public var fireAtMs: Int64

    /// A timer for one subscription.
    public init(originalTransactionId: String, fireAtMs: Int64) {
        self.originalTransactionId = originalTransactionId
        self.fireAtMs = fireAtMs
    }

    /// The key a pending timer is stored under: one per subscription.
    public var id: String { Self.idPrefix + originalTransactionId }

    /// What every timer id starts with; the original transaction id follows.
    public static let idPrefix = "expiration/"
}
