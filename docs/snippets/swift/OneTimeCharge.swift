import AppStore

// ONE_TIME_CHARGE: what to do with the customer's access, from the decoded payload of a
// notification you have verified (responseBodyV2DecodedPayload).
func decideOneTimeCharge(_ payload: ResponseBodyV2DecodedPayload) -> String {
    switch payload.subtype {
    case nil:
        "Grant the purchase once per transactionId: credit the consumable or unlock the content."
    default:
        "A subtype this code does not know: store the notification and look into it."
    }
}
