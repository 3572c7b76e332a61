import AppStore
import Foundation

/// Apple-shaped payloads with every field, for the model decoding tests.
enum Fixture {
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
