import AppStore

// SUBSCRIBED: what to do with the customer's access, from the decoded payload of a
// notification you have verified (responseBodyV2DecodedPayload).
func decideSubscribed(_ payload: ResponseBodyV2DecodedPayload) -> String {
    switch payload.subtype {
    case .initialBuy?:
        "Grant the entitlement until the transaction's expiresDate, noting any trial or offer from offerType."
    case .resubscribe?:
        "Grant the entitlement again until the new expiresDate, on the product the transaction names."
    default:
        "A subtype this code does not know: store the notification and look into it."
    }
}
