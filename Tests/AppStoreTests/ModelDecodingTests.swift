import AppStore
import Foundation
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
    #"{"purchaseDate":1.5}"#, #"{"quantity":3000000000}"#, #"{"commitmentInfo":[]}"#,
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

private func decode<T: Decodable>(_ type: T.Type, _ json: String) throws -> T {
    try JSONDecoder().decode(type, from: Data(json.utf8))
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

private enum Fixture {
    static let notification = #"""
        {
          "notificationType": "CONSUMPTION_REQUEST",
          "notificationUUID": "002e14d5-51f5-4503-b5a8-c3a1af68eb20",
          "data": {
            "appAppleId": 41234,
            "bundleId": "com.example",
            "bundleVersion": "1.2.3",
            "environment": "Sandbox",
            "signedTransactionInfo": "signed_transaction_info_value",
            "signedRenewalInfo": "signed_renewal_info_value",
            "status": 4,
            "consumptionRequestReason": "UNINTENDED_PURCHASE"
          },
          "version": "2.0",
          "signedDate": 1698148900000
        }
        """#

    static let summaryNotification = #"""
        {
          "notificationType": "RENEWAL_EXTENSION",
          "subtype": "SUMMARY",
          "notificationUUID": "002e14d5-51f5-4503-b5a8-c3a1af68eb20",
          "version": "2.0",
          "signedDate": 1698148900000,
          "summary": {
            "environment": "LocalTesting",
            "appAppleId": 41234,
            "bundleId": "com.example",
            "productId": "com.example.product",
            "requestIdentifier": "efb27071-45a4-4aca-9854-2a1e9146f265",
            "storefrontCountryCodes": ["CAN", "USA", "MEX"],
            "succeededCount": 5,
            "failedCount": 2
          }
        }
        """#

    static let tokenNotification = #"""
        {
          "notificationType": "EXTERNAL_PURCHASE_TOKEN",
          "subtype": "ACTIVE_TOKEN_REMINDER",
          "notificationUUID": "002e14d5-51f5-4503-b5a8-c3a1af68eb20",
          "version": "2.0",
          "signedDate": 1698148900000,
          "externalPurchaseToken": {
            "externalPurchaseId": "SANDBOX_b2158121-7af9-49d4-9561-1f588205523e",
            "tokenCreationDate": 1698148950000,
            "appAppleId": 55555,
            "bundleId": "com.example",
            "tokenExpirationDate": 1700740950000,
            "tokenType": "SERVICES"
          }
        }
        """#

    static let transaction = #"""
        {
          "transactionId": "23456",
          "originalTransactionId": "12345",
          "previousOriginalTransactionId": "11111",
          "webOrderLineItemId": "34343",
          "bundleId": "com.example",
          "productId": "com.example.product",
          "subscriptionGroupIdentifier": "55555",
          "purchaseDate": 1698148900000,
          "originalPurchaseDate": 1698148800000,
          "expiresDate": 1698149000000,
          "quantity": 1,
          "type": "Auto-Renewable Subscription",
          "appAccountToken": "7e3fb20b-4cdb-47cc-936d-99d65f608138",
          "inAppOwnershipType": "PURCHASED",
          "signedDate": 1698148900000,
          "revocationReason": 1,
          "revocationDate": 1698148950000,
          "revocationType": "REFUND_PRORATED",
          "revocationPercentage": 50000,
          "isUpgraded": true,
          "offerType": 4,
          "offerIdentifier": "abc.123",
          "offerDiscountType": "PAY_AS_YOU_GO",
          "offerPeriod": "P1Y",
          "environment": "LocalTesting",
          "storefront": "USA",
          "storefrontId": "143441",
          "transactionReason": "PURCHASE",
          "currency": "USD",
          "price": 12980,
          "appTransactionId": "71134",
          "advancedCommerceInfo": {
            "descriptors": {"description": "Streaming pass", "displayName": "Streaming Pass"},
            "estimatedTax": 0,
            "items": [{
              "SKU": "LIVE_SPORTS",
              "description": "Streaming for sports events",
              "displayName": "Live Sports",
              "offer": {"period": "P1M", "periodCount": 3, "price": 2990, "reason": "ACQUISITION"},
              "price": 3990,
              "refunds": [{
                "refundAmount": 1000,
                "refundDate": 1698148960000,
                "refundReason": "MODIFY_ITEMS_REFUND",
                "refundType": "PRORATED"
              }],
              "revocationDate": 1698148960000
            }],
            "period": "P1M",
            "requestReferenceId": "74ad2401-488d-4e1a-9c9d-80cdf0efed67",
            "taxCode": "C003-00-1",
            "taxExclusivePrice": 12980,
            "taxRate": "0"
          },
          "billingPlanType": "MONTHLY",
          "commitmentInfo": {
            "billingPeriodNumber": 1,
            "commitmentExpiresDate": 1812447660000,
            "commitmentPrice": 131880,
            "totalBillingPeriods": 12
          }
        }
        """#

    static let expectedTransaction = JWSTransactionDecodedPayload(
        transactionId: "23456",
        originalTransactionId: "12345",
        previousOriginalTransactionId: "11111",
        webOrderLineItemId: "34343",
        bundleId: "com.example",
        productId: "com.example.product",
        subscriptionGroupIdentifier: "55555",
        purchaseDate: 1_698_148_900_000,
        originalPurchaseDate: 1_698_148_800_000,
        expiresDate: 1_698_149_000_000,
        quantity: 1,
        type: .autoRenewable,
        appAccountToken: "7e3fb20b-4cdb-47cc-936d-99d65f608138",
        inAppOwnershipType: .purchased,
        signedDate: 1_698_148_900_000,
        revocationReason: .refundedDueToIssue,
        revocationDate: 1_698_148_950_000,
        revocationType: .refundProrated,
        revocationPercentage: 50000,
        isUpgraded: true,
        offerType: .winBack,
        offerIdentifier: "abc.123",
        offerDiscountType: .payAsYouGo,
        offerPeriod: "P1Y",
        environment: .localTesting,
        storefront: "USA",
        storefrontId: "143441",
        transactionReason: .purchase,
        currency: "USD",
        price: 12980,
        appTransactionId: "71134",
        advancedCommerceInfo: TransactionAdvancedCommerceInfo(
            descriptors: AdvancedCommerceDescriptors(
                description: "Streaming pass",
                displayName: "Streaming Pass"
            ),
            estimatedTax: 0,
            items: [
                TransactionAdvancedCommerceItem(
                    sku: "LIVE_SPORTS",
                    description: "Streaming for sports events",
                    displayName: "Live Sports",
                    offer: AdvancedCommerceOffer(
                        period: .oneMonth,
                        periodCount: 3,
                        price: 2990,
                        reason: .acquisition
                    ),
                    price: 3990,
                    refunds: [
                        AdvancedCommerceRefund(
                            refundAmount: 1000,
                            refundDate: 1_698_148_960_000,
                            refundReason: .modifyItemsRefund,
                            refundType: .prorated
                        )
                    ],
                    revocationDate: 1_698_148_960_000
                )
            ],
            period: .oneMonth,
            requestReferenceId: "74ad2401-488d-4e1a-9c9d-80cdf0efed67",
            taxCode: "C003-00-1",
            taxExclusivePrice: 12980,
            taxRate: "0"
        ),
        billingPlanType: .monthly,
        commitmentInfo: TransactionCommitmentInfo(
            billingPeriodNumber: 1,
            commitmentExpiresDate: 1_812_447_660_000,
            commitmentPrice: 131_880,
            totalBillingPeriods: 12
        )
    )

    static let renewalInfo = #"""
        {
          "originalTransactionId": "12345",
          "productId": "com.example.product",
          "autoRenewProductId": "com.example.product.2",
          "autoRenewStatus": 1,
          "expirationIntent": 3,
          "isInBillingRetryPeriod": true,
          "gracePeriodExpiresDate": 1698148900000,
          "priceIncreaseStatus": 0,
          "offerType": 2,
          "offerIdentifier": "abc.123",
          "offerDiscountType": "FREE_TRIAL",
          "offerPeriod": "P1W",
          "signedDate": 1698148800000,
          "environment": "Production",
          "recentSubscriptionStartDate": 1698148800000,
          "renewalDate": 1698148850000,
          "renewalPrice": 9990,
          "currency": "EUR",
          "eligibleWinBackOfferIds": ["eligible1", "eligible2"],
          "appAccountToken": "7e3fb20b-4cdb-47cc-936d-99d65f608138",
          "appTransactionId": "71134",
          "advancedCommerceInfo": {
            "consistencyToken": "1.12345.932c6903-0ab8-4469-9f21-015f6fab013c",
            "descriptors": {"description": "Streaming pass", "displayName": "Streaming Pass"},
            "items": [{
              "SKU": "LIVE_SPORTS",
              "description": "Streaming for sports events",
              "displayName": "Live Sports",
              "offer": {"period": "P3D", "periodCount": 1, "price": 0, "reason": "WIN_BACK"},
              "price": 3990,
              "priceIncreaseInfo": {"dependentSKUs": ["HD"], "price": 4990, "status": "SCHEDULED"}
            }],
            "period": "P1Y",
            "requestReferenceId": "74ad2401-488d-4e1a-9c9d-80cdf0efed67",
            "taxCode": "C003-00-1"
          },
          "renewalBillingPlanType": "BILLED_UPFRONT",
          "commitmentInfo": {
            "commitmentAutoRenewProductId": "plus.standard.annual",
            "commitmentAutoRenewStatus": 0,
            "commitmentRenewalBillingPlanType": "BILLED_UPFRONT",
            "commitmentRenewalDate": 1812447660000,
            "commitmentRenewalPrice": 10990
          }
        }
        """#

    static let expectedRenewalInfo = JWSRenewalInfoDecodedPayload(
        originalTransactionId: "12345",
        productId: "com.example.product",
        autoRenewProductId: "com.example.product.2",
        autoRenewStatus: .on,
        expirationIntent: .customerDidNotConsentToPriceIncrease,
        isInBillingRetryPeriod: true,
        gracePeriodExpiresDate: 1_698_148_900_000,
        priceIncreaseStatus: .customerHasNotResponded,
        offerType: .promotional,
        offerIdentifier: "abc.123",
        offerDiscountType: .freeTrial,
        offerPeriod: "P1W",
        signedDate: 1_698_148_800_000,
        environment: .production,
        recentSubscriptionStartDate: 1_698_148_800_000,
        renewalDate: 1_698_148_850_000,
        renewalPrice: 9990,
        currency: "EUR",
        eligibleWinBackOfferIds: ["eligible1", "eligible2"],
        appAccountToken: "7e3fb20b-4cdb-47cc-936d-99d65f608138",
        appTransactionId: "71134",
        advancedCommerceInfo: RenewalAdvancedCommerceInfo(
            consistencyToken: "1.12345.932c6903-0ab8-4469-9f21-015f6fab013c",
            descriptors: AdvancedCommerceDescriptors(
                description: "Streaming pass",
                displayName: "Streaming Pass"
            ),
            items: [
                RenewalAdvancedCommerceItem(
                    sku: "LIVE_SPORTS",
                    description: "Streaming for sports events",
                    displayName: "Live Sports",
                    offer: AdvancedCommerceOffer(
                        period: .threeDays,
                        periodCount: 1,
                        price: 0,
                        reason: .winBack
                    ),
                    price: 3990,
                    priceIncreaseInfo: AdvancedCommercePriceIncreaseInfo(
                        dependentSKUs: ["HD"],
                        price: 4990,
                        status: .scheduled
                    )
                )
            ],
            period: .oneYear,
            requestReferenceId: "74ad2401-488d-4e1a-9c9d-80cdf0efed67",
            taxCode: "C003-00-1"
        ),
        renewalBillingPlanType: .billedUpfront,
        commitmentInfo: RenewalCommitmentInfo(
            commitmentAutoRenewProductId: "plus.standard.annual",
            commitmentAutoRenewStatus: .off,
            commitmentRenewalBillingPlanType: .billedUpfront,
            commitmentRenewalDate: 1_812_447_660_000,
            commitmentRenewalPrice: 10990
        )
    )

    static let appTransaction = #"""
        {
          "receiptType": "LocalTesting",
          "appAppleId": 531412,
          "bundleId": "com.example",
          "applicationVersion": "1.2.3",
          "versionExternalIdentifier": 512,
          "receiptCreationDate": 1698148900000,
          "originalPurchaseDate": 1698148800000,
          "originalApplicationVersion": "1.1.2",
          "deviceVerification": "device_verification_value",
          "deviceVerificationNonce": "48ccfa42-7431-4f22-9908-7e88983e105a",
          "preorderDate": 1698148700000,
          "appTransactionId": "71134",
          "originalPlatform": "iOS"
        }
        """#
}
