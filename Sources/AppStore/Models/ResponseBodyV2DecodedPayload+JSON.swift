import JSON

/// The notification and its data read straight from parsed JSON (`JSONValueReadable`), as their
/// `Decodable` conformances read them: every notification is decoded once on its way in. A test
/// holds each equal to `JSONDecoder`.
extension ResponseBodyV2DecodedPayload: JSONValueReadable {
    public init(json: JSONValue) throws {
        let fields = try JSONFields(json, of: Self.self)
        self.init(
            notificationType: try fields.optional("notificationType", NotificationTypeV2.self),
            subtype: try fields.optional("subtype", Subtype.self),
            notificationUUID: try fields.optionalString("notificationUUID"),
            data: try fields.present("data").map(NotificationData.init(json:)),
            summary: try fields.optionalDecoded("summary", NotificationSummary.self),
            externalPurchaseToken: try fields.optionalDecoded("externalPurchaseToken", ExternalPurchaseToken.self),
            appData: try fields.optionalDecoded("appData", AppData.self),
            version: try fields.optionalString("version"),
            signedDate: try fields.optionalMilliseconds("signedDate"))
    }
}

extension NotificationData: JSONValueReadable {
    public init(json: JSONValue) throws {
        let fields = try JSONFields(json, of: Self.self)
        self.init(
            appAppleId: try fields.optionalInt64("appAppleId"),
            bundleId: try fields.optionalString("bundleId"),
            bundleVersion: try fields.optionalString("bundleVersion"),
            environment: try fields.optional("environment", AppStoreEnvironment.self),
            signedTransactionInfo: try fields.optionalString("signedTransactionInfo"),
            signedRenewalInfo: try fields.optionalString("signedRenewalInfo"),
            status: try fields.optional("status", SubscriptionStatus.self),
            consumptionRequestReason: try fields.optional("consumptionRequestReason", ConsumptionRequestReason.self))
    }
}
