import AppStore

// PRICE_INCREASE: what to do with the customer's access, from the decoded payload of a
// notification you have verified (responseBodyV2DecodedPayload).
func decidePriceIncrease(_ payload: ResponseBodyV2DecodedPayload) -> String {
    switch payload.subtype {
    case .pending?:
        "Leave the entitlement unchanged and record priceIncreaseStatus from the renewal info."
    case .accepted?:
        "Leave the entitlement unchanged and record the new renewal price."
    default:
        "A subtype this code does not know: store the notification and look into it."
    }
}
