import AppStore

// DID_CHANGE_RENEWAL_PREF: what to do with the customer's access, from the decoded payload of a
// notification you have verified (responseBodyV2DecodedPayload).
func decideDidChangeRenewalPref(_ payload: ResponseBodyV2DecodedPayload) -> String {
    switch payload.subtype {
    case .upgrade?:
        "Move the entitlement to the new product now, until the new expiresDate."
    case .downgrade?:
        "Keep the current entitlement and record autoRenewProductId as the pending plan."
    case nil:
        "Keep the entitlement as it is and clear the pending plan change."
    default:
        "A subtype this code does not know: store the notification and look into it."
    }
}
