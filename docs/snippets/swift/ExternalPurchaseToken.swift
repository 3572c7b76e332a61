import AppStore

// EXTERNAL_PURCHASE_TOKEN: what to do with the customer's access, from the decoded payload of a
// notification you have verified (responseBodyV2DecodedPayload).
func decideExternalPurchaseToken(_ payload: ResponseBodyV2DecodedPayload) -> String {
    switch payload.subtype {
    case .unreported?:
        "Change no entitlement."
    case .created?:
        "Change no entitlement."
    case .activeTokenReminder?:
        "Change no entitlement."
    default:
        "A subtype this code does not know: store the notification and look into it."
    }
}
