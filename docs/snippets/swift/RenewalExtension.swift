import AppStore

// RENEWAL_EXTENSION: what to do with the customer's access, from the decoded payload of a
// notification you have verified (responseBodyV2DecodedPayload).
func decideRenewalExtension(_ payload: ResponseBodyV2DecodedPayload) -> String {
    switch payload.subtype {
    case .summary?:
        "Change no entitlement; each extended subscription has its own RENEWAL_EXTENDED."
    case .failure?:
        "Leave the entitlement as it is."
    default:
        "A subtype this code does not know: store the notification and look into it."
    }
}
