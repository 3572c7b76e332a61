import AppStore

// METADATA_UPDATE: what to do with the customer's access, from the decoded payload of a
// notification you have verified (responseBodyV2DecodedPayload).
func decideMetadataUpdate(_ payload: ResponseBodyV2DecodedPayload) -> String {
    switch payload.subtype {
    case nil:
        "Keep the entitlement and update the stored display name, description or SKUs from the payload."
    default:
        "A subtype this code does not know: store the notification and look into it."
    }
}
