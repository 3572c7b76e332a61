import AppStore

// REFUND_DECLINED: what to do with the customer's access, from the decoded payload of a
// notification you have verified (responseBodyV2DecodedPayload).
func decideRefundDeclined(_ payload: ResponseBodyV2DecodedPayload) -> String {
    switch payload.subtype {
    case nil:
        "Change nothing about the entitlement."
    default:
        "A subtype this code does not know: store the notification and look into it."
    }
}
