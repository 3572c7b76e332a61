import AppStore

// MIGRATION: what to do with the customer's access, from the decoded payload of a
// notification you have verified (responseBodyV2DecodedPayload).
func decideMigration(_ payload: ResponseBodyV2DecodedPayload) -> String {
    switch payload.subtype {
    case nil:
        "Keep the entitlement and mark the subscription as managed through Advanced Commerce."
    default:
        "A subtype this code does not know: store the notification and look into it."
    }
}
