import AppStore
import AppStoreServerAPI
import AppStoreServerAPISimulator
import Foundation
import JSON
import LoopbackClient
import Testing

@testable import Server
@testable import Storage

/// Which version of Send Consumption Information an answer takes, the customer's own refund
/// preference, Apple's range for a prorated share, and the last try before the 12 hours end.
@Suite("Consumption answers: versions, preferences and Apple's limits")
struct ConsumptionAnswerRulesTests {
    static func config(_ preference: RefundPreference? = .decline, share: Int32? = 40_000) -> ConsumptionConfig {
        var config = ConsumptionConfig()
        config.customerConsented = true
        config.sampleContentProvided = true
        config.refundPreference = preference
        config.oneTimeConsumptionPercentage = share
        return config
    }

    static let commerce = TransactionAdvancedCommerceInfo(requestReferenceId: "ref-1")

    /// Apple takes an Advanced Commerce purchase's answer in version 1's form only (version 2
    /// refuses it), and version 1 only for consumables and auto-renewable subscriptions.
    @Test(
        arguments: [
            // type, share, expected consumption status (nil: skipped)
            (ProductType.consumable, Int32?(40_000), ConsumptionRequestV1.ConsumptionStatus?.some(.partiallyConsumed)),
            (.consumable, 0, .notConsumed),
            (.consumable, 100_000, .fullyConsumed),
            (.consumable, nil, .undeclared),
            (.autoRenewable, 40_000, .undeclared),
            (.nonConsumable, 40_000, nil),
        ] as [(ProductType, Int32?, ConsumptionRequestV1.ConsumptionStatus?)])
    func advancedCommercePurchasesAreAnsweredInVersionOne(
        type: ProductType, share: Int32?, status: ConsumptionRequestV1.ConsumptionStatus?
    ) {
        let transaction = JWSTransactionDecodedPayload(
            type: type, appAccountToken: "6b1f4a52-0c4e-4a53-9d27-1c8a3b6b0f11", advancedCommerceInfo: Self.commerce)
        let outcome = ConsumptionDecision.decide(transaction: transaction, config: Self.config(share: share))
        guard let status else {
            guard case .skip(let reason) = outcome else {
                Issue.record("answered: \(outcome)")
                return
            }
            #expect(reason.contains("Advanced Commerce"))
            return
        }
        guard case .sendV1(let request) = outcome else {
            Issue.record("not version 1: \(outcome)")
            return
        }
        #expect(request.consumptionStatus == status)
        #expect(request.deliveryStatus == .deliveredAndWorking)
        #expect(request.refundPreference == .preferDecline)
        #expect(request.appAccountToken == "6b1f4a52-0c4e-4a53-9d27-1c8a3b6b0f11")
        #expect(request.customerConsented && request.sampleContentProvided)
        #expect(request.platform == .undeclared && request.accountTenure == 0 && request.userStatus == 0)
    }

    /// Version 1 has no prorated refund, so an Advanced Commerce purchase is answered whatever
    /// the share; "let Apple decide" is version 1's "no preference"; a purchase shared through
    /// Family Sharing is not Apple's to ask about (FamilyTransactionNotSupportedError).
    @Test func versionOneAndFamilySharingRules() {
        let consumable = JWSTransactionDecodedPayload(type: .consumable, advancedCommerceInfo: Self.commerce)
        guard
            case .sendV1(let prorated) = ConsumptionDecision.decide(
                transaction: consumable, config: Self.config(.grantProrated, share: nil))
        else {
            Issue.record("a prorated Advanced Commerce answer was not sent")
            return
        }
        #expect(prorated.refundPreference == .noPreference)
        guard
            case .sendV1(let undecided) = ConsumptionDecision.decide(
                transaction: consumable, config: Self.config(), customerPreference: "LET_APPLE_DECIDE")
        else {
            Issue.record("not version 1")
            return
        }
        #expect(undecided.refundPreference == .noPreference)
        guard
            case .skip(let reason) = ConsumptionDecision.decide(
                transaction: JWSTransactionDecodedPayload(type: .consumable, inAppOwnershipType: .familyShared),
                config: Self.config())
        else {
            Issue.record("a family-shared purchase was answered")
            return
        }
        #expect(reason.contains("Family Sharing"))
    }

    /// Version 1's numbers for version 2's values.
    @Test func versionTwoValuesMapToVersionOne() {
        let mapped:
            [(DeliveryStatus, RefundPreference?, ConsumptionRequestV1.DeliveryStatus, ConsumptionRequestV1.RefundPreference?)] = [
                (.delivered, .grantFull, .deliveredAndWorking, .preferGrant),
                (.undeliveredQualityIssue, .decline, .qualityIssue, .preferDecline),
                (.undeliveredWrongItem, .grantProrated, .wrongItem, .noPreference),
                (.undeliveredServerOutage, nil, .serverOutage, nil),
                (.undeliveredOther, nil, .otherReason, nil),
            ]
        for (delivery, preference, v1Delivery, v1Preference) in mapped {
            let request = ConsumptionRequestV1(
                ConsumptionRequest(
                    customerConsented: true, sampleContentProvided: false, deliveryStatus: delivery,
                    refundPreference: preference), appAccountToken: nil)
            #expect(request.deliveryStatus == v1Delivery)
            #expect(request.refundPreference == v1Preference)
            #expect(request.appAccountToken == "")
        }
        let body = try? JSONValue(
            parsing: Endpoint.sendConsumptionInformationV1(
                transactionId: "1",
                ConsumptionRequestV1(
                    customerConsented: true, consumptionStatus: .notConsumed, sampleContentProvided: false,
                    deliveryStatus: .serverOutage)
            ).body() ?? Data())
        #expect(body?["deliveryStatus"] == .integer(3))
        #expect(body?["appAccountToken"] == .string(""))
        #expect(body?["refundPreference"] == nil)
    }

    /// RevenueCat's `$appleRefundHandlingPreference` sets one customer's answer apart.
    @Test(
        arguments: [
            (String?.none, RefundPreference?.some(.decline), true), ("DO_NOT_HANDLE", nil, false),
            ("GRANT_REFUND", .grantFull, true), ("DECLINE_REFUND", .decline, true), ("LET_APPLE_DECIDE", nil, true),
            ("SOMETHING_ELSE", .decline, true),
        ] as [(String?, RefundPreference?, Bool)])
    func theCustomersPreferenceWins(attribute: String?, preference: RefundPreference?, sent: Bool) {
        let outcome = ConsumptionDecision.decide(
            transaction: JWSTransactionDecodedPayload(type: .autoRenewable), config: Self.config(),
            customerPreference: attribute)
        switch outcome {
        case .send(let request):
            #expect(sent)
            #expect(request.refundPreference == preference)
        case .skip(let reason):
            #expect(!sent)
            #expect(reason.contains("DO_NOT_HANDLE"))
        case .sendV1: Issue.record("version 1 for an App Store purchase")
        }
    }

    /// Apple takes a prorated refund of a one-time purchase only with a share strictly between
    /// nothing and all: not sent otherwise, and refused when the configuration is loaded.
    @Test func aProratedShareIsStrictlyBetweenNothingAndAll() throws {
        for share: Int32 in [0, 100_000] {
            let outcome = ConsumptionDecision.decide(
                transaction: JWSTransactionDecodedPayload(type: .consumable), config: Self.config(.grantProrated, share: share))
            guard case .skip(let reason) = outcome else {
                Issue.record("sent \(share): \(outcome)")
                return
            }
            #expect(reason.contains("between 1 and 99999"))
        }
        guard
            case .send = ConsumptionDecision.decide(
                transaction: JWSTransactionDecodedPayload(type: .consumable), config: Self.config(.grantProrated, share: 99_999))
        else {
            Issue.record("99999 not sent")
            return
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("consumption-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (share, refused) in [(100_000, true), (0, true), (50_000, false)] {
            let json = #"{"consumption": {"refundPreference": "GRANT_PRORATED", "oneTimeConsumptionPercentage": \#(share)}}"#
            let reader = try ConfigReader(
                file: "test.json", path: "appleApi", value: try JSONValue(parsing: Data(json.utf8)))
            if refused {
                #expect(throws: ConfigError.self) { _ = try AppleAPIConfigLoader.load(reader, directory: directory) }
            } else {
                #expect(
                    try AppleAPIConfigLoader.load(reader, directory: directory).consumption.oneTimeConsumptionPercentage == 50_000
                )
            }
        }
    }

    /// A back-off that would pass the 12 hours is cut to one last try ten minutes before they
    /// end, and none follows it.
    @Test func theLastTryComesBeforeTheWindowEnds() {
        let requested: Int64 = 1_000_000_000
        let hour: Int64 = 3_600_000
        let lastTry = requested + 12 * hour - ConsumptionDecision.lastTryMarginMs
        #expect(
            ConsumptionDecision.nextAttempt(after: 9, nowMs: requested + 11 * hour + hour / 4, requestedAtMs: requested)
                == lastTry)
        #expect(ConsumptionDecision.nextAttempt(after: 10, nowMs: lastTry, requestedAtMs: requested) == nil)
        #expect(ConsumptionDecision.nextAttempt(after: 10, nowMs: lastTry + 1000, requestedAtMs: requested) == nil)
        #expect(
            ConsumptionDecision.nextAttempt(after: 3, nowMs: requested + hour, requestedAtMs: requested) == requested + hour
                + 1_200_000)
    }
}
