import AppStore

// OFFER_REDEEMED: what to do with the customer's access, from the decoded payload of a
// notification you have verified (responseBodyV2DecodedPayload).
func decideOfferRedeemed(_ payload: ResponseBodyV2DecodedPayload) -> String {
    switch payload.subtype {
    case .upgrade?:
        "Move the entitlement to the new product now and record the offer from offerType and offerIdentifier."
    case .downgrade?:
        "Keep the current entitlement and record the pending plan and offer from the renewal info."
    case nil:
        "Keep the entitlement and record the redeemed offer for reporting."
    default:
        "A subtype this code does not know: store the notification and look into it."
    }
}
