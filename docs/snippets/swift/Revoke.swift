import AppStore

// REVOKE: what to do with the customer's access, from the decoded payload of a
// notification you have verified (responseBodyV2DecodedPayload).
func decideRevoke(_ payload: ResponseBodyV2DecodedPayload) -> String {
    switch payload.subtype {
    case nil:
        "Revoke the family member's entitlement (inAppOwnershipType FAMILY_SHARED)."
    default:
        "A subtype this code does not know: store the notification and look into it."
    }
}
