import AppStore

// REFUND_REVERSED: what to do with the customer's access, from the decoded payload of a
// notification you have verified (responseBodyV2DecodedPayload).
func decideRefundReversed(_ payload: ResponseBodyV2DecodedPayload) -> String {
    switch payload.subtype {
    case nil:
        "Reinstate the content or subscription access the refund had removed, keeping the existing expiresDate."
    default:
        "A subtype this code does not know: store the notification and look into it."
    }
}
