import AppStore

// RESCIND_CONSENT: what to do with the customer's access, from the decoded payload of a
// notification you have verified (responseBodyV2DecodedPayload).
func decideRescindConsent(_ payload: ResponseBodyV2DecodedPayload) -> String {
    switch payload.subtype {
    case nil:
        "Suspend the account tied to the app transaction, as your legal obligations require."
    default:
        "A subtype this code does not know: store the notification and look into it."
    }
}
