import AppStore

// TEST: what to do with the customer's access, from the decoded payload of a
// notification you have verified (responseBodyV2DecodedPayload).
func decideTest(_ payload: ResponseBodyV2DecodedPayload) -> String {
    switch payload.subtype {
    case nil:
        "Change no entitlement."
    default:
        "A subtype this code does not know: store the notification and look into it."
    }
}
