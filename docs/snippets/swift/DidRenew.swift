import AppStore

// DID_RENEW: what to do with the customer's access, from the decoded payload of a
// notification you have verified (responseBodyV2DecodedPayload).
func decideDidRenew(_ payload: ResponseBodyV2DecodedPayload) -> String {
    switch payload.subtype {
    case nil:
        "Keep the entitlement and move its end to the new expiresDate."
    case .billingRecovery?:
        "Restore or keep the entitlement until the new expiresDate and clear the billing-issue flag."
    default:
        "A subtype this code does not know: store the notification and look into it."
    }
}
