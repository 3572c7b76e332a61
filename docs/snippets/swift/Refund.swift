import AppStore

// REFUND: what to do with the customer's access, from the decoded payload of a
// notification you have verified (responseBodyV2DecodedPayload).
func decideRefund(_ payload: ResponseBodyV2DecodedPayload) -> String {
    switch payload.subtype {
    case nil:
        "Revoke what the transaction granted: end subscription access or take back the content."
    default:
        "A subtype this code does not know: store the notification and look into it."
    }
}
