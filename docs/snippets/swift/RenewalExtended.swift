import AppStore

// RENEWAL_EXTENDED: what to do with the customer's access, from the decoded payload of a
// notification you have verified (responseBodyV2DecodedPayload).
func decideRenewalExtended(_ payload: ResponseBodyV2DecodedPayload) -> String {
    switch payload.subtype {
    case nil:
        "Keep the entitlement and move its end to the new expiresDate."
    default:
        "A subtype this code does not know: store the notification and look into it."
    }
}
