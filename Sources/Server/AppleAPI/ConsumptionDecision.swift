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

    /// The answer about `transaction` (the one the request names).
    package static func decide(transaction: JWSTransactionDecodedPayload?, config: ConsumptionConfig) -> Outcome {
        guard config.customerConsented else {
            return .skip("appleApi.consumption.customerConsented is not true: Apple takes no answer without consent")
        }
        // What may be sent depends on the product's type (a share for a subscription is refused).
        guard let type = transaction?.type, type.isKnown else {
            return .skip("the request's transaction, and so its product type, is not stored")
        }
        var request = ConsumptionRequest(
            customerConsented: true, sampleContentProvided: config.sampleContentProvided,
            deliveryStatus: config.deliveryStatus, refundPreference: config.refundPreference)
        if type == .autoRenewable {
            // Apple computes a subscription's consumption itself and refuses a share sent for one
            // (ConsumptionPercentageAutoRenewableSubscriptionError).
        } else if config.deliveryStatus != .delivered {
            // Apple's rule: what was not delivered was not consumed (UndeliveredConsumptionPercentageNonZeroError).
            request.consumptionPercentage = 0
        } else {
            request.consumptionPercentage = config.oneTimeConsumptionPercentage
        }
        if config.refundPreference == .grantProrated, type != .autoRenewable,
            (request.consumptionPercentage ?? 0) <= 0
        {
            return .skip(
                "refundPreference GRANT_PRORATED needs a consumptionPercentage above 0 for a one-time purchase"
                    + " (appleApi.consumption.oneTimeConsumptionPercentage, with deliveryStatus DELIVERED): Apple refuses it without one"
            )
        }
        return .send(request)
    }

    /// When to try again after `attempts` attempts failed for a reason that may pass (no answer,
    /// 5xx, 429): 5 minutes, doubling to at most an hour, and not before `notBeforeMs` (when a
    /// 429's `Retry-After` says); nil when that is past Apple's window.
    package static func nextAttempt(after attempts: Int, nowMs: Int64, requestedAtMs: Int64, notBeforeMs: Int64? = nil)
        -> Int64?
    {
        let delay = min(Int64(300_000) << Int64(min(max(attempts - 1, 0), 10)), 3_600_000)
        let next = max(nowMs + delay, notBeforeMs ?? 0)
        return next < requestedAtMs + windowMs ? next : nil
    }
}
