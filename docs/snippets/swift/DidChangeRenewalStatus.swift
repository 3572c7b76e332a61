import AppStore

// DID_CHANGE_RENEWAL_STATUS: what to do with the customer's access, from the decoded payload of a
// notification you have verified (responseBodyV2DecodedPayload).
func decideDidChangeRenewalStatus(_ payload: ResponseBodyV2DecodedPayload) -> String {
    switch payload.subtype {
    case .autoRenewEnabled?:
        "Keep the entitlement and clear the will-not-renew flag."
    case .autoRenewDisabled?:
        "Keep the entitlement until expiresDate and mark the subscription as not renewing."
    default:
        "A subtype this code does not know: store the notification and look into it."
    }
}
