import AppStore

// DID_FAIL_TO_RENEW: what to do with the customer's access, from the decoded payload of a
// notification you have verified (responseBodyV2DecodedPayload).
func decideDidFailToRenew(_ payload: ResponseBodyV2DecodedPayload) -> String {
    switch payload.subtype {
    case nil:
        "End access (or limit it): it ended at the transaction's expiresDate. Mark the subscription as in billing retry, not cancelled."
    case .gracePeriod?:
        "Keep the entitlement until gracePeriodExpiresDate in the renewal info, although the transaction's expiresDate has passed, and flag a billing issue."
    default:
        "A subtype this code does not know: store the notification and look into it."
    }
}
