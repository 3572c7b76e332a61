import AppStore

// CONSUMPTION_REQUEST: what to do with the customer's access, from the decoded payload of a
// notification you have verified (responseBodyV2DecodedPayload).
func decideConsumptionRequest(_ payload: ResponseBodyV2DecodedPayload) -> String {
    switch payload.subtype {
    case nil:
        "Leave the entitlement unchanged; the refund is not decided yet."
    default:
        "A subtype this code does not know: store the notification and look into it."
    }
}
