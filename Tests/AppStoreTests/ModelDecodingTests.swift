import AppStore
import Foundation
import JSON
import Testing

// MARK: - Full payloads

@Test func notificationWithEveryDataFieldDecodes() throws {
    let payload = try decode(ResponseBodyV2DecodedPayload.self, Fixture.notification)
    let expected = ResponseBodyV2DecodedPayload(
        notificationType: .consumptionRequest,
        subtype: nil,
        notificationUUID: "002e14d5-51f5-4503-b5a8-c3a1af68eb20",
        data: NotificationData(
            appAppleId: 41234,
            bundleId: "com.example",
            bundleVersion: "1.2.3",
            environment: .sandbox,
            signedTransactionInfo: "signed_transaction_info_value",
            signedRenewalInfo: "signed_renewal_info_value",
            status: .billingGracePeriod,
            consumptionRequestReason: .unintendedPurchase
        ),
        version: "2.0",
        signedDate: 1_698_148_900_000
    )
    #expect(payload == expected)
    #expect(try roundTrip(payload) == payload)
}

@Test func transactionWithEveryFieldDecodes() throws {
    let transaction = try decode(JWSTransactionDecodedPayload.self, Fixture.transaction)
    #expect(transaction == Fixture.expectedTransaction)
    #expect(try roundTrip(transaction) == transaction)
}

@Test func renewalInfoWithEveryFieldDecodes() throws {
    let renewal = try decode(JWSRenewalInfoDecodedPayload.self, Fixture.renewalInfo)
    #expect(renewal == Fixture.expectedRenewalInfo)
    #expect(try roundTrip(renewal) == renewal)
}

@Test func appTransactionDecodes() throws {
    let appTransaction = try decode(AppTransaction.self, Fixture.appTransaction)
    let expected = AppTransaction(
        receiptType: .localTesting,
        appAppleId: 531_412,
        bundleId: "com.example",
        applicationVersion: "1.2.3",
        versionExternalIdentifier: 512,
        receiptCreationDate: 1_698_148_900_000,
        originalPurchaseDate: 1_698_148_800_000,
        originalApplicationVersion: "1.1.2",
        deviceVerification: "device_verification_value",
        deviceVerificationNonce: "48ccfa42-7431-4f22-9908-7e88983e105a",
        preorderDate: 1_698_148_700_000,
        appTransactionId: "71134",
        originalPlatform: .iOS
    )
    #expect(appTransaction == expected)
    #expect(try roundTrip(appTransaction) == appTransaction)
}

// MARK: - App identity

/// Payloads and the app identity Apple's libraries read from them.
private let identityCases: [(ResponseBodyV2DecodedPayload, NotificationAppIdentity)] = [
    (
        ResponseBodyV2DecodedPayload(
            data: NotificationData(appAppleId: 1, bundleId: "a", environment: .production)
        ),
        NotificationAppIdentity(bundleId: "a", appAppleId: 1, environment: .production)
    ),
    (
        ResponseBodyV2DecodedPayload(
            summary: NotificationSummary(environment: .sandbox, appAppleId: 2, bundleId: "b")
        ),
        NotificationAppIdentity(bundleId: "b", appAppleId: 2, environment: .sandbox)
    ),
    (
        ResponseBodyV2DecodedPayload(
            externalPurchaseToken: ExternalPurchaseToken(
                externalPurchaseId: "SANDBOX_b2158121",
                appAppleId: 3,
                bundleId: "c"
            )
        ),
        NotificationAppIdentity(bundleId: "c", appAppleId: 3, environment: .sandbox)
    ),
    (
        ResponseBodyV2DecodedPayload(
            externalPurchaseToken: ExternalPurchaseToken(
                externalPurchaseId: "b2158121-SANDBOX",
                appAppleId: 4,
                bundleId: "d"
            )
        ),
        NotificationAppIdentity(bundleId: "d", appAppleId: 4, environment: .production)
    ),
    (
        ResponseBodyV2DecodedPayload(
            appData: AppData(appAppleId: 5, bundleId: "e", environment: .sandbox)
        ),
        NotificationAppIdentity(bundleId: "e", appAppleId: 5, environment: .sandbox)
    ),
    (
        ResponseBodyV2DecodedPayload(
            data: NotificationData(bundleId: "f", environment: .sandbox),
            summary: NotificationSummary(environment: .production, appAppleId: 6, bundleId: "g")
        ),
        NotificationAppIdentity(bundleId: "f", appAppleId: nil, environment: .sandbox)
    ),
    (ResponseBodyV2DecodedPayload(notificationType: .test), NotificationAppIdentity()),
]

@Test(arguments: identityCases)
func appIdentityFollowsApplesOrder(
    payload: ResponseBodyV2DecodedPayload,
    expected: NotificationAppIdentity
) {
    #expect(payload.appIdentity == expected)
}

@Test func summaryNotificationDecodes() throws {
    let payload = try decode(ResponseBodyV2DecodedPayload.self, Fixture.summaryNotification)
    #expect(payload.subtype == .summary)
    #expect(
        payload.summary
            == NotificationSummary(
                environment: .localTesting,
                appAppleId: 41234,
                bundleId: "com.example",
                productId: "com.example.product",
                requestIdentifier: "efb27071-45a4-4aca-9854-2a1e9146f265",
                storefrontCountryCodes: ["CAN", "USA", "MEX"],
                succeededCount: 5,
                failedCount: 2
            )
    )
    #expect(payload.appIdentity.environment == .localTesting)
}

@Test func externalPurchaseTokenNotificationDecodes() throws {
    let payload = try decode(ResponseBodyV2DecodedPayload.self, Fixture.tokenNotification)
    #expect(payload.subtype == .activeTokenReminder)
    #expect(
        payload.externalPurchaseToken
            == ExternalPurchaseToken(
                externalPurchaseId: "SANDBOX_b2158121-7af9-49d4-9561-1f588205523e",
                tokenCreationDate: 1_698_148_950_000,
                appAppleId: 55555,
                bundleId: "com.example",
                tokenExpirationDate: 1_700_740_950_000,
                tokenType: .services
            )
    )
    #expect(
        payload.appIdentity
            == NotificationAppIdentity(
                bundleId: "com.example",
                appAppleId: 55555,
                environment: .sandbox
            )
    )
}

// MARK: - Open enums

/// Every open enum with the number of values Apple documents for it.
private let documentedValueCounts: [(any OpenEnum.Type, Int)] = [
    (NotificationTypeV2.self, 23), (Subtype.self, 19), (AppStoreEnvironment.self, 4),
    (ProductType.self, 4), (InAppOwnershipType.self, 2), (OfferType.self, 4),
    (OfferDiscountType.self, 4), (RevocationReason.self, 2), (RevocationType.self, 3),
    (TransactionReason.self, 2), (AutoRenewStatus.self, 2), (ExpirationIntent.self, 5),
    (PriceIncreaseStatus.self, 2), (SubscriptionStatus.self, 5),
    (ConsumptionRequestReason.self, 5), (BillingPlanType.self, 2),
    (ExternalPurchaseTokenType.self, 4), (PurchasePlatform.self, 4),
    (AdvancedCommerceRefundReason.self, 7), (AdvancedCommerceRefundType.self, 3),
    (AdvancedCommercePriceIncreaseInfoStatus.self, 3), (AdvancedCommerceOfferReason.self, 3),
    (AdvancedCommercePeriod.self, 6), (AdvancedCommerceOfferPeriod.self, 9),
]

@Test(arguments: documentedValueCounts)
func knownValuesRoundTrip(type: any OpenEnum.Type, count: Int) throws {
    #expect(type.knownValues.count == count)
    try checkKnownValues(type)
}

/// Raw values (as JSON) that no enum knows today.
private let futureValues: [(any OpenEnum.Type, String)] = [
    (NotificationTypeV2.self, #""FUTURE_TYPE""#), (Subtype.self, #""FUTURE_SUBTYPE""#),
    (AppStoreEnvironment.self, #""Staging""#), (ProductType.self, #""Bundle""#),
    (OfferType.self, "7"), (RevocationReason.self, "-1"), (SubscriptionStatus.self, "6"),
    (AdvancedCommercePeriod.self, #""P2Y""#),
]

@Test(arguments: futureValues)
func unknownValueIsKeptAndReEncoded(type: any OpenEnum.Type, json: String) throws {
    try checkUnknownValue(type, json: json)
}

@Test func unknownValuesInsidePayloadsSurviveReEncoding() throws {
    let notification = try decode(
        ResponseBodyV2DecodedPayload.self,
        #"""
        {"notificationType":"FUTURE_TYPE","subtype":"FUTURE_SUBTYPE",
         "data":{"environment":"Staging"}}
        """#
    )
    #expect(notification.notificationType == .unknown("FUTURE_TYPE"))
    #expect(notification.subtype == .unknown("FUTURE_SUBTYPE"))
    #expect(notification.data?.environment == .unknown("Staging"))
    let object = try jsonObject(notification)
    #expect(object["notificationType"] as? String == "FUTURE_TYPE")
    #expect(object["subtype"] as? String == "FUTURE_SUBTYPE")
    #expect((object["data"] as? [String: Any])?["environment"] as? String == "Staging")

    let transaction = try decode(
        JWSTransactionDecodedPayload.self,
        #"{"offerType":7,"type":"Bundle"}"#
    )
    #expect(transaction.offerType == .unknown(7))
    #expect(transaction.type == .unknown("Bundle"))
    let encoded = try jsonObject(transaction)
    #expect(encoded["offerType"] as? Int == 7)
    #expect(encoded["type"] as? String == "Bundle")
}

// MARK: - Wire rules

@Test func unknownFieldsAreIgnored() throws {
    let withExtras = #"""
        {"notificationType":"TEST","futureField":{"a":[1,2]},"notificationUUID":"u",
         "data":{"bundleId":"com.example","newThing":true}}
        """#
    let plain =
        #"{"notificationType":"TEST","notificationUUID":"u","data":{"bundleId":"com.example"}}"#
    #expect(
        try decode(ResponseBodyV2DecodedPayload.self, withExtras)
            == decode(ResponseBodyV2DecodedPayload.self, plain)
    )
}

@Test func encodingOmitsAbsentFieldsAndSpellsSKU() throws {
    let transaction = JWSTransactionDecodedPayload(transactionId: "1", price: 1990)
    #expect(try jsonObject(transaction).keys.sorted() == ["price", "transactionId"])
    let item = RenewalAdvancedCommerceItem(sku: "LIVE_SPORTS", price: 40000)
    #expect(try jsonObject(item).keys.sorted() == ["SKU", "price"])
    #expect(try decode(RenewalAdvancedCommerceItem.self, #"{"SKU":"A","sku":"B"}"#).sku == "A")
}

@Test(arguments: [
    #"{"price":"1990"}"#, #"{"offerType":"1"}"#, #"{"type":1}"#, #"{"isUpgraded":"true"}"#,
    #"{"purchaseDate":1e19}"#, #"{"purchaseDate":"1"}"#, #"{"quantity":1.5}"#, #"{"quantity":3000000000}"#,
    #"{"commitmentInfo":[]}"#,
    #"{"advancedCommerceInfo":{"items":[{"SKU":"A","price":"1"}]}}"#,
])
func wrongJSONTypeForKnownTransactionFieldThrows(json: String) {
    #expect(throws: DecodingError.self) {
        try decode(JWSTransactionDecodedPayload.self, json)
    }
}

@Test(arguments: [
    #"{"notificationType":3}"#, #"{"data":{"appAppleId":"41234"}}"#,
    #"{"data":{"status":"1"}}"#, #"{"summary":{"storefrontCountryCodes":"USA"}}"#,
])
func wrongJSONTypeForKnownNotificationFieldThrows(json: String) {
    #expect(throws: DecodingError.self) {
        try decode(ResponseBodyV2DecodedPayload.self, json)
    }
}

// MARK: - Helpers

/// Decodes with `JSONDecoder` and with the verifier's `JSONValueDecoder`, which must agree:
/// the same value, or both failing.
private func decode<T: Decodable & Equatable>(_ type: T.Type, _ json: String) throws -> T {
    let data = Data(json.utf8)
    let foundation = Result { try JSONDecoder().decode(type, from: data) }
    let ours = Result { try JSONValueDecoder().decode(type, from: data) }
    switch (foundation, ours) {
    case (.success(let expected), .success(let value)):
        #expect(value == expected, "JSONValueDecoder disagrees with JSONDecoder on \(json)")
        return expected
    case (.failure(let error), .failure(let other)):
        #expect(other is DecodingError, "JSONValueDecoder threw \(other)")
        throw error
    default:
        Issue.record("JSONDecoder and JSONValueDecoder disagree on \(json)")
        return try foundation.get()
    }
}

private func roundTrip<T: Codable>(_ value: T) throws -> T {
    try JSONDecoder().decode(T.self, from: JSONEncoder().encode(value))
}

private func jsonObject(_ value: some Encodable) throws -> [String: Any] {
    let data = try JSONEncoder().encode(value)
    return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
}

private func checkKnownValues<E: OpenEnum>(_: E.Type) throws {
    let rawValues = E.knownValues.map(\.rawValue)
    #expect(Set(rawValues).count == rawValues.count, "raw values must be distinct")
    for value in E.knownValues {
        #expect(value.isKnown)
        #expect(E(rawValue: value.rawValue) == value)
        let encoded = try JSONEncoder().encode(value)
        #expect(try encoded == JSONEncoder().encode(value.rawValue))
        #expect(try JSONDecoder().decode(E.self, from: encoded) == value)
    }
}

private func checkUnknownValue<E: OpenEnum>(_: E.Type, json: String) throws {
    let value = try JSONDecoder().decode(E.self, from: Data(json.utf8))
    #expect(value == E.unknown(value.rawValue))
    #expect(!value.isKnown)
    #expect(String(decoding: try JSONEncoder().encode(value), as: UTF8.self) == json)
}

// MARK: - Fixtures
