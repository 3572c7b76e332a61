import AppStore

// GRACE_PERIOD_EXPIRED: what to do with the customer's access, from the decoded payload of a
// notification you have verified (responseBodyV2DecodedPayload).
func decideGracePeriodExpired(_ payload: ResponseBodyV2DecodedPayload) -> String {
    switch payload.subtype {
    case nil:
        "Revoke the entitlement, keeping the subscription marked as in billing retry."
    default:
        "A subtype this code does not know: store the notification and look into it."
    }
}
