/// What an attempt to deliver an event makes of its delivery: the decision, as a value, that
/// `Deliveries.record` writes.
public enum DeliveryStep: Sendable, Equatable {
    /// Answered 2xx: done.
    case delivered(attempts: Int, atMs: Int64, status: Int)
    /// Failed, with attempts left: due again at `atMs`.
    case retry(attempts: Int, atMs: Int64, status: Int?, reason: String)
    /// Failed at `atMs` with every retry delay used: a dead letter (`revenuedot events resend`
    /// sends it again).
    case dead(attempts: Int, atMs: Int64, status: Int?, reason: String)

    /// The step after `outcome`, the attempt after `attemptsBefore` earlier ones, at `nowMs`:
    /// a failure is retried after `retryDelaysSeconds[n - 1]` for its n-th attempt, and dead once
    /// every delay is used.
    public static func after(
        _ outcome: DeliveryOutcome, attemptsBefore: Int, retryDelaysSeconds: [Int], at nowMs: Int64
    ) -> DeliveryStep {
        let attempts = attemptsBefore + 1
        switch outcome {
        case .delivered(let status):
            return .delivered(attempts: attempts, atMs: nowMs, status: status)
        case .failed(let status, let reason):
            guard attempts <= retryDelaysSeconds.count else {
                return .dead(attempts: attempts, atMs: nowMs, status: status, reason: reason)
            }
            let delayMs = Int64(retryDelaysSeconds[attempts - 1]) * 1000
            let (next, overflow) = nowMs.addingReportingOverflow(delayMs)
            return .retry(attempts: attempts, atMs: overflow ? .max : next, status: status, reason: reason)
        }
    }

    /// The delivery's status once recorded: `delivered`, `pending` or `dead`.
    public var status: String {
        switch self {
        case .delivered: "delivered"
        case .retry: "pending"
        case .dead: "dead"
        }
    }
}
