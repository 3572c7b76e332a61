import AppStore

// PRICE_CHANGE: what to do with the customer's access, from the decoded payload of a
// notification you have verified (responseBodyV2DecodedPayload).
func decidePriceChange(_ payload: ResponseBodyV2DecodedPayload) -> String {
    switch payload.subtype {
    case nil:
        "Keep the entitlement and record the new renewal price per item."
    default:
        "A subtype this code does not know: store the notification and look into it."
    }
}
