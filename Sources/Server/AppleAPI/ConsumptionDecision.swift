import AppStore
import AppStoreServerAPI

/// What RevenueDot answers Apple's consumption request about a purchase, and when it tries
/// again: decisions as values, from what is stored and configured.
///
/// https://developer.apple.com/documentation/appstoreserverapi/send-consumption-information
package enum ConsumptionDecision {
    package enum Outcome: Equatable, Sendable {
        case send(ConsumptionRequest)
        /// Not sent, and why.
        case skip(String)
    }

    /// Apple allows 12 hours from the request.
    package static let windowMs: Int64 = 12 * 3_600_000

    /// The answer about `transaction` (the one the request names) at `requestedAtMs`.
    package static func decide(transaction: JWSTransactionDecodedPayload?, config: ConsumptionConfig, requestedAtMs: Int64)
        -> Outcome
    {
        guard config.customerConsented else {
            return .skip("appleApi.consumption.customerConsented is not true: Apple takes no answer without consent")
        }
        var request = ConsumptionRequest(
            customerConsented: true, sampleContentProvided: config.sampleContentProvided,
            deliveryStatus: config.deliveryStatus, refundPreference: config.refundPreference)
        if config.deliveryStatus != .delivered {
            // Apple's rule: what was not delivered was not consumed.
            request.consumptionPercentage = 0
        } else if transaction?.type == .autoRenewable {
            // A prorated refund of a subscription is Apple's to compute: no share is sent with it.
            if config.refundPreference != .grantProrated, let share = periodShare(transaction, at: requestedAtMs) {
                request.consumptionPercentage = share
            }
        } else {
            request.consumptionPercentage = config.oneTimeConsumptionPercentage
        }
        return .send(request)
    }

    /// The share of the transaction's period gone at `atMs`, in thousandths of a percent.
    package static func periodShare(_ transaction: JWSTransactionDecodedPayload?, at atMs: Int64) -> Int32? {
        guard let start = transaction?.purchaseDate, let end = transaction?.expiresDate, end > start else { return nil }
        let elapsed = min(max(atMs, start), end) - start
        return Int32((Double(elapsed) / Double(end - start) * 100_000).rounded(.down))
    }

    /// When to try again after `attempts` attempts failed for a reason that may pass (no answer,
    /// 5xx, 429): 5 minutes, doubling to at most an hour; nil when that is past Apple's window.
    package static func nextAttempt(after attempts: Int, nowMs: Int64, requestedAtMs: Int64) -> Int64? {
        let delay = min(Int64(300_000) << Int64(min(max(attempts - 1, 0), 10)), 3_600_000)
        let next = nowMs + delay
        return next < requestedAtMs + windowMs ? next : nil
    }
}
