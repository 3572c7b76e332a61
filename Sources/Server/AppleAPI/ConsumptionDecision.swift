import AppStore
import AppStoreServerAPI

/// What RevenueDot answers Apple's consumption request about a purchase, and when it tries
/// again: decisions as values, from what is stored and configured.
///
/// https://developer.apple.com/documentation/appstoreserverapi/send-consumption-information
package enum ConsumptionDecision {
    package enum Outcome: Equatable, Sendable {
        case send(ConsumptionRequest)
        /// An Advanced Commerce purchase's answer, which Apple takes in version 1's form only.
        case sendV1(ConsumptionRequestV1)
        /// Not sent, and why.
        case skip(String)
    }

    /// Apple allows 12 hours from the request.
    package static let windowMs: Int64 = 12 * 3_600_000
    /// The last try is made this long before the 12 hours end, so that it can end within them.
    package static let lastTryMarginMs: Int64 = 600_000

    /// RevenueCat's subscriber attribute with which an app sets one customer's answer apart from
    /// the configured one.
    package static let preferenceAttribute = "$appleRefundHandlingPreference"

    /// The answer about `transaction` (the one the request names), for a customer whose
    /// `$appleRefundHandlingPreference` is `customerPreference`: `DO_NOT_HANDLE` sends nothing
    /// (a customer who did not consent), `GRANT_REFUND`, `DECLINE_REFUND` and
    /// `LET_APPLE_DECIDE` replace the configured `refundPreference`; any other value, or none,
    /// keeps it.
    package static func decide(
        transaction: JWSTransactionDecodedPayload?, config: ConsumptionConfig, customerPreference: String? = nil
    ) -> Outcome {
        guard config.customerConsented else {
            return .skip("appleApi.consumption.customerConsented is not true: Apple takes no answer without consent")
        }
        var preference = config.refundPreference
        // RevenueCat's "let Apple decide": no preference, which version 1 says outright.
        var noPreference = false
        switch customerPreference {
        case "DO_NOT_HANDLE"?:
            return .skip("the customer's \(preferenceAttribute) is DO_NOT_HANDLE")
        case "GRANT_REFUND"?: preference = .grantFull
        case "DECLINE_REFUND"?: preference = .decline
        case "LET_APPLE_DECIDE"?: (preference, noPreference) = (nil, true)
        default: break
        }
        // What may be sent depends on the product's type (a share for a subscription is refused).
        guard let transaction, transaction.type?.isKnown == true, let type = transaction.type else {
            return .skip("the request's transaction, and so its product type, is not stored")
        }
        if transaction.inAppOwnershipType == .familyShared {
            return .skip("Apple takes no consumption information about a purchase shared through Family Sharing")
        }
        var request = ConsumptionRequest(
            customerConsented: true, sampleContentProvided: config.sampleContentProvided,
            deliveryStatus: config.deliveryStatus, refundPreference: preference)
        if type == .autoRenewable {
            // Apple computes a subscription's consumption itself and refuses a share sent for one
            // (ConsumptionPercentageAutoRenewableSubscriptionError).
        } else if config.deliveryStatus != .delivered {
            // Apple's rule: what was not delivered was not consumed (UndeliveredConsumptionPercentageNonZeroError).
            request.consumptionPercentage = 0
        } else {
            request.consumptionPercentage = config.oneTimeConsumptionPercentage
        }
        if transaction.advancedCommerceInfo != nil {
            // Version 1 takes consumables and auto-renewable subscriptions (InvalidTransactionTypeNotSupportedError);
            // it has no prorated refund (no preference instead), so any share goes.
            guard type == .consumable || type == .autoRenewable else {
                return .skip(
                    "Apple takes consumption information about an Advanced Commerce purchase (version 1) only for a "
                        + "consumable or an auto-renewable subscription, not a \(type.rawValue)")
            }
            var answer = ConsumptionRequestV1(request, appAccountToken: transaction.appAccountToken)
            if noPreference { answer.refundPreference = .noPreference }
            return .sendV1(answer)
        }
        if type != .autoRenewable, preference == .grantProrated,
            !ConsumptionRequest.allows(share: request.consumptionPercentage ?? 0, with: .grantProrated)
        {
            return .skip(
                "refundPreference GRANT_PRORATED needs a consumptionPercentage between 1 and 99999 for a one-time purchase"
                    + " (appleApi.consumption.oneTimeConsumptionPercentage, with deliveryStatus DELIVERED): Apple refuses it without one"
            )
        }
        return .send(request)
    }

    /// When to try again after `attempts` attempts failed for a reason that may pass (no answer,
    /// 5xx, 429): 5 minutes, doubling to at most an hour, and not before `notBeforeMs` (when a
    /// 429's `Retry-After` says). A back-off that would reach past Apple's window is cut to one
    /// last try `lastTryMarginMs` before it ends; nil once that try was made, or when Apple asks
    /// to wait past the window.
    package static func nextAttempt(after attempts: Int, nowMs: Int64, requestedAtMs: Int64, notBeforeMs: Int64? = nil)
        -> Int64?
    {
        let delay = min(Int64(300_000) << Int64(min(max(attempts - 1, 0), 10)), 3_600_000)
        let lastTry = requestedAtMs + windowMs - lastTryMarginMs
        let next = max(min(nowMs + delay, lastTry), notBeforeMs ?? 0)
        return next > nowMs && next < requestedAtMs + windowMs ? next : nil
    }
}
