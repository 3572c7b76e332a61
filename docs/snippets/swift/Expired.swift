import AppStore

// EXPIRED: what to do with the customer's access, from the decoded payload of a
// notification you have verified (responseBodyV2DecodedPayload).
func decideExpired(_ payload: ResponseBodyV2DecodedPayload) -> String {
    switch payload.subtype {
    case .voluntary?:
        "Revoke the entitlement."
    case .billingRetry?:
        "Revoke the entitlement if still granted and clear the billing-retry state."
    case .priceIncrease?:
        "Revoke the entitlement."
    case .productNotForSale?:
        "Revoke the entitlement."
    case nil:
        "Revoke the entitlement and log the renewal info's expirationIntent for follow-up."
    default:
        "A subtype this code does not know: store the notification and look into it."
    }
}
