import AppStore
import AppStoreServerAPI
import AppStoreServerAPISimulator
import Foundation
import Testing

/// Every endpoint against the local App Store Server API: Apple's shapes, paging and errors,
/// every signed object verified.
@Suite("App Store Server API endpoints")
struct EndpointTests {
    let fixture: APIFixture
    init() throws { fixture = try APIFixture() }

    var store: SimulatedAppStore { fixture.store }
    var client: AppStoreServerAPIClient { fixture.client }

    @Test func transactionInfoIsVerified() throws {
        store.addTransaction(APIFixture.transaction("1000"), bundleId: APIFixture.bundleId)
        let verified = try client.transactionInfo("1000")
        #expect(verified.payload.transactionId == "1000")
        #expect(verified.isSignedByAppStore)
        do {
            _ = try client.transactionInfo("9999")
            Issue.record("an unknown transaction was found")
        } catch {
            #expect(error.status == 404)
            #expect(error.code == .transactionIdNotFound)
            #expect(error.description.contains("TransactionIdNotFoundError (4040010)"))
        }
    }

    @Test func transactionHistoryPagesByRevisionWithItsFilters() throws {
        for index in 0..<45 {
            let product = index % 3 == 0 ? "pro.yearly" : "pro.monthly"
            store.addTransaction(
                APIFixture.transaction("\(2000 + index)", original: "2000", product: product, revoked: index == 7),
                bundleId: APIFixture.bundleId)
        }
        store.addTransaction(APIFixture.transaction("3000"), bundleId: APIFixture.bundleId)
        let first = try client.transactionHistoryPage("2010")
        #expect(first.transactions.count == 20)
        #expect(first.hasMore)
        let all = try client.transactionHistory("2000")
        #expect(all.map(\.payload.transactionId) == (0..<45).map { "\(2000 + $0)" })
        #expect(store.requestCount("transaction-history") == 1 + 3)

        let yearly = try client.transactionHistory("2000", filter: TransactionHistoryRequest(productIds: ["pro.yearly"]))
        #expect(yearly.count == 15)
        let revoked = try client.transactionHistory("2000", filter: TransactionHistoryRequest(revoked: true))
        #expect(revoked.map(\.payload.transactionId) == ["2007"])
        let newest = try client.transactionHistoryPage("2000", filter: TransactionHistoryRequest(sort: .descending))
        #expect(newest.transactions.first?.payload.transactionId == "2044")
        let refunds = try client.refundHistoryPage("2000")
        #expect(refunds.transactions.map(\.payload.transactionId) == ["2007"])
        #expect(!refunds.hasMore)
    }

    /// Apple sorts by when each transaction last changed: one changed between two pages comes
    /// again on a later one, with its change, and none is skipped.
    @Test func aTransactionChangedBetweenPagesComesAgainAndNoneIsSkipped() throws {
        for index in 0..<25 {
            store.addTransaction(APIFixture.transaction("\(5000 + index)", original: "5000"), bundleId: APIFixture.bundleId)
        }
        let first = try client.transactionHistoryPage("5000")
        #expect(first.transactions.count == 20 && first.hasMore)
        store.addTransaction(
            APIFixture.transaction("5003", original: "5000", revoked: true), bundleId: APIFixture.bundleId)
        let second = try client.transactionHistoryPage("5000", revision: first.revision)
        #expect(second.transactions.map(\.payload.transactionId) == (20..<25).map { "\(5000 + $0)" } + ["5003"])
        #expect(second.transactions.last?.payload.revocationDate != nil)
        #expect(!second.hasMore)
        // Apple's statuses take 1 to 5 alone.
        #expect(throws: AppStoreServerAPIError.self) { _ = try client.subscriptionStatuses("5000", statuses: [.resolve(9)]) }
    }

    @Test func statusesFollowTheSubscriptionsAndTheirFilter() throws {
        let now = APIFixture.nowMs
        store.addTransaction(
            APIFixture.transaction("4000", expires: now + 86_400_000), bundleId: APIFixture.bundleId, account: "a")
        store.addTransaction(
            APIFixture.transaction("4100", expires: now - 86_400_000), bundleId: APIFixture.bundleId, account: "a")
        store.addTransaction(APIFixture.transaction("4200", expires: now - 1000), bundleId: APIFixture.bundleId, account: "a")
        store.setRenewalInfo(
            [
                "originalTransactionId": .string("4200"), "gracePeriodExpiresDate": .integer(now + 3_600_000),
                "environment": .string("Sandbox"), "autoRenewStatus": .integer(1),
            ],
            originalTransactionId: "4200")
        let statuses = try client.subscriptionStatuses("4000")
        let byId = Dictionary(uniqueKeysWithValues: statuses.map { ($0.originalTransactionId ?? "", $0) })
        #expect(byId["4000"]?.status == .active)
        #expect(byId["4100"]?.status == .expired)
        #expect(byId["4200"]?.status == .billingGracePeriod)
        #expect(byId["4200"]?.renewalInfo?.payload.gracePeriodExpiresDate == now + 3_600_000)
        #expect(byId["4000"]?.transaction?.payload.transactionId == "4000")
        let active = try client.subscriptionStatuses("4000", statuses: [.active])
        #expect(active.map(\.originalTransactionId) == ["4000"])
    }

    @Test func notificationHistoryPagesAndFilters() throws {
        let now = APIFixture.nowMs
        for index in 0..<25 {
            let transaction = APIFixture.transaction("\(5000 + index)")
            let signed = try APIFixture.notification(
                type: index == 3 ? "REFUND" : "DID_RENEW", transaction: transaction, signedDate: now - Int64(25 - index) * 60_000)
            try store.addNotification(signed, bundleId: APIFixture.bundleId, delivered: index % 5 != 0)
        }
        let range = NotificationHistoryRequest(startDate: now - 86_400_000, endDate: now + 1000)
        let first = try client.notificationHistoryPage(range)
        #expect(first.notificationHistory?.count == 20)
        #expect(first.hasMore == true)
        // The token goes with the body it was given for.
        var other = range
        other.onlyFailures = true
        #expect(throws: AppStoreServerAPIError.self) {
            _ = try client.notificationHistoryPage(other, paginationToken: first.paginationToken)
        }
        let second = try client.notificationHistoryPage(range, paginationToken: first.paginationToken)
        #expect(second.notificationHistory?.count == 5)
        #expect(second.hasMore == false)
        #expect(second.paginationToken == nil)

        var failures = range
        failures.onlyFailures = true
        #expect(try client.notificationHistoryPage(failures).notificationHistory?.count == 5)
        var refunds = range
        refunds.notificationType = .refund
        #expect(try client.notificationHistoryPage(refunds).notificationHistory?.count == 1)
        var byTransaction = range
        byTransaction.transactionId = "5007"
        #expect(try client.notificationHistoryPage(byTransaction).notificationHistory?.count == 1)
        // A transaction id names its customer: their account's notifications, about any of its
        // transactions; one Apple does not know, none.
        for id in ["5011", "5019"] {
            store.addTransaction(APIFixture.transaction(id), bundleId: APIFixture.bundleId, account: "one-customer")
        }
        var byCustomer = range
        byCustomer.transactionId = "5019"
        #expect(try client.notificationHistoryPage(byCustomer).notificationHistory?.count == 2)
        byCustomer.transactionId = "9999"
        #expect(try client.notificationHistoryPage(byCustomer).notificationHistory?.count == 0)
        var subtypeAlone = range
        subtypeAlone.notificationSubtype = .billingRecovery
        var unknownType = range
        unknownType.notificationType = .unknown("NOT_A_TYPE")
        for refused in [subtypeAlone, unknownType] {
            do {
                _ = try client.notificationHistoryPage(refused)
                Issue.record("\(refused) was accepted")
            } catch {
                #expect(error.code == APIErrorCode(4_000_018))
            }
        }

        var both = byTransaction
        both.notificationType = .refund
        #expect(throws: AppStoreServerAPIError.self) { _ = try client.notificationHistoryPage(both) }
        do {
            _ = try client.notificationHistoryPage(NotificationHistoryRequest(startDate: now - 31 * 86_400_000, endDate: now))
            Issue.record("a start date past Sandbox's 30 days was accepted")
        } catch {
            #expect(error.code == .startDateTooFarInPast)
        }
        do {
            _ = try client.notificationHistoryPage(range, paginationToken: "bogus")
            Issue.record("a bad pagination token was accepted")
        } catch {
            #expect(error.code == .invalidPaginationToken)
        }
    }

    @Test func testNotificationsAreRequestedAndVerified() throws {
        let token = try client.requestTestNotification()
        let status = try client.testNotificationStatus(token)
        #expect(status.notification?.notification.payload.notificationType == .test)
        #expect(throws: AppStoreServerAPIError.self) { _ = try client.testNotificationStatus("unknown") }
    }

    @Test func consumptionInformationIsSentAndCheckedAsAppleDoes() throws {
        var consumable = APIFixture.transaction("6000")
        consumable["type"] = .string("Consumable")
        store.addTransaction(consumable, bundleId: APIFixture.bundleId)
        store.addTransaction(APIFixture.transaction("6100"), bundleId: APIFixture.bundleId)
        let request = ConsumptionRequest(
            customerConsented: true, sampleContentProvided: false, deliveryStatus: .delivered, consumptionPercentage: 25_000,
            refundPreference: .decline)
        try client.sendConsumptionInformation(request, transactionId: "6000")
        let sent = try #require(store.consumptionRequests.first)
        #expect(sent.transactionId == "6000")
        #expect(sent.request["deliveryStatus"] == .string("DELIVERED"))
        #expect(sent.request["consumptionPercentage"] == .integer(25_000))

        // A subscription's consumption is Apple's to compute: a share for one is refused.
        #expect(throws: AppStoreServerAPIError.self) { try client.sendConsumptionInformation(request, transactionId: "6100") }
        var subscription = request
        subscription.consumptionPercentage = nil
        subscription.refundPreference = .grantProrated
        try client.sendConsumptionInformation(subscription, transactionId: "6100")
        // A prorated refund of a one-time purchase needs a share above 0.
        var prorated = request
        (prorated.consumptionPercentage, prorated.refundPreference) = (0, .grantProrated)
        #expect(throws: AppStoreServerAPIError.self) { try client.sendConsumptionInformation(prorated, transactionId: "6000") }
        #expect(store.consumptionRequests.count == 2)

        var withoutConsent = request
        withoutConsent.customerConsented = false
        do {
            try client.sendConsumptionInformation(withoutConsent, transactionId: "6000")
            Issue.record("consumption without consent was accepted")
        } catch {
            #expect(error.code == APIErrorCode(4_000_035))
        }
    }

    /// Version 2 refuses an Advanced Commerce purchase, and a prorated share of all of one;
    /// version 1 takes the Advanced Commerce one with every member it requires.
    @Test func advancedCommercePurchasesTakeVersionOne() throws {
        var commerce = APIFixture.transaction("6200")
        commerce["type"] = .string("Consumable")
        commerce["advancedCommerceInfo"] = .object(["requestReferenceId": .string("ref")])
        store.addTransaction(commerce, bundleId: APIFixture.bundleId)
        let request = ConsumptionRequest(
            customerConsented: true, sampleContentProvided: false, deliveryStatus: .delivered, consumptionPercentage: 25_000)
        #expect(throws: AppStoreServerAPIError.self) { try client.sendConsumptionInformation(request, transactionId: "6200") }
        var all = request
        (all.consumptionPercentage, all.refundPreference) = (100_000, .grantProrated)
        var consumable = APIFixture.transaction("6300")
        consumable["type"] = .string("Consumable")
        store.addTransaction(consumable, bundleId: APIFixture.bundleId)
        #expect(throws: AppStoreServerAPIError.self) { try client.sendConsumptionInformation(all, transactionId: "6300") }
        #expect(store.consumptionRequests.isEmpty)

        try client.sendConsumptionInformationV1(ConsumptionRequestV1(request, appAccountToken: nil), transactionId: "6200")
        let sent = try #require(store.consumptionRequestsV1.first)
        #expect(sent.request["consumptionStatus"] == .integer(2))
        #expect(sent.request["appAccountToken"] == .string(""))
        // Version 1 names the member it misses.
        var refused = ConsumptionRequestV1(request, appAccountToken: "not a uuid")
        refused.userStatus = 9
        do {
            try client.sendConsumptionInformationV1(refused, transactionId: "6200")
            Issue.record("an out-of-range userStatus was accepted")
        } catch {
            #expect(error.code == APIErrorCode(4_000_042))
        }
    }

    @Test func renewalDatesAreExtendedOneAndMass() throws {
        let now = APIFixture.nowMs
        store.addTransaction(APIFixture.transaction("7000", expires: now + 86_400_000), bundleId: APIFixture.bundleId)
        store.addTransaction(APIFixture.transaction("7100", expires: now + 86_400_000), bundleId: APIFixture.bundleId)
        let answer = try client.extendRenewalDate(
            ExtendRenewalDateRequest(extendByDays: 3, extendReasonCode: .customerSatisfaction, requestIdentifier: "r1"),
            originalTransactionId: "7000")
        #expect(answer.success == true)
        #expect(answer.effectiveDate == now + 4 * 86_400_000)
        #expect(store.expiresDate(originalTransactionId: "7000", bundleId: APIFixture.bundleId) == now + 4 * 86_400_000)
        #expect(throws: AppStoreServerAPIError.self) {
            _ = try client.extendRenewalDate(
                ExtendRenewalDateRequest(extendByDays: 91, extendReasonCode: .other, requestIdentifier: "r2"),
                originalTransactionId: "7000")
        }
        // The same request again (a retry) is answered alike and extends nothing more; a second
        // extension is allowed, a third in the year is not.
        let again = try client.extendRenewalDate(
            ExtendRenewalDateRequest(extendByDays: 3, extendReasonCode: .customerSatisfaction, requestIdentifier: "r1"),
            originalTransactionId: "7000")
        #expect(again.effectiveDate == now + 4 * 86_400_000)
        #expect(store.expiresDate(originalTransactionId: "7000", bundleId: APIFixture.bundleId) == now + 4 * 86_400_000)
        _ = try client.extendRenewalDate(
            ExtendRenewalDateRequest(extendByDays: 1, extendReasonCode: .other, requestIdentifier: "r3"),
            originalTransactionId: "7000")
        #expect(store.expiresDate(originalTransactionId: "7000", bundleId: APIFixture.bundleId) == now + 5 * 86_400_000)
        func refusal(_ id: String, _ identifier: String) -> APIErrorCode? {
            do {
                _ = try client.extendRenewalDate(
                    ExtendRenewalDateRequest(extendByDays: 1, extendReasonCode: .other, requestIdentifier: identifier),
                    originalTransactionId: id)
                return nil
            } catch { return error.code }
        }
        #expect(refusal("7000", "r4") == APIErrorCode(4_030_005))
        // An expired subscription, and a family member's, cannot be extended.
        store.addTransaction(APIFixture.transaction("7200", expires: now - 1000), bundleId: APIFixture.bundleId)
        #expect(refusal("7200", "e1") == APIErrorCode(4_030_004))
        var shared = APIFixture.transaction("7300", expires: now + 86_400_000)
        shared["inAppOwnershipType"] = .string("FAMILY_SHARED")
        store.addTransaction(shared, bundleId: APIFixture.bundleId)
        #expect(refusal("7300", "f1") == APIErrorCode(4_030_007))

        let mass = try client.extendRenewalDatesForAllActiveSubscribers(
            MassExtendRenewalDateRequest(
                extendByDays: 1, extendReasonCode: .serviceIssueOrOutage, requestIdentifier: "m1", productId: "pro.monthly"))
        #expect(mass.requestIdentifier == "m1")
        let status = try client.renewalDateExtensionStatus(productId: "pro.monthly", requestIdentifier: "m1")
        #expect(status.complete == true)
        // The three active subscriptions (the family member's too), not the expired one.
        #expect(status.succeededCount == 3)
    }

    @Test func ordersAndAppAccountTokens() throws {
        store.addTransaction(APIFixture.transaction("8000"), bundleId: APIFixture.bundleId)
        store.addOrder("MK5TTTVWJH", transactionIds: ["8000"])
        let order = try client.lookUpOrderId("MK5TTTVWJH")
        #expect(order.status == .valid)
        #expect(order.transactions.map(\.payload.transactionId) == ["8000"])
        #expect(try client.lookUpOrderId("UNKNOWN").status == .invalid)

        let token = "7E3FB20B-4CDB-47CC-936D-99D65F608138"
        try client.setAppAccountToken(token, originalTransactionId: "8000")
        #expect(store.appAccountToken(originalTransactionId: "8000", bundleId: APIFixture.bundleId) == token.lowercased())
        #expect(try client.transactionInfo("8000").payload.appAccountToken == token.lowercased())
        do {
            try client.setAppAccountToken("not-a-uuid", originalTransactionId: "8000")
            Issue.record("a token that is no UUID was accepted")
        } catch {
            #expect(error.code == APIErrorCode(4_000_183))
        }
        // A renewal's id names the purchase, but Apple wants the original one.
        store.addTransaction(APIFixture.transaction("8001", original: "8000"), bundleId: APIFixture.bundleId)
        do {
            try client.setAppAccountToken(token, originalTransactionId: "8001")
            Issue.record("a renewal's id was taken for the original")
        } catch {
            #expect(error.code == APIErrorCode(4_000_187))
        }
    }

    @Test func answersAsJSONHaveTheirSignedMembersDecoded() throws {
        store.addTransaction(APIFixture.transaction("9000"), bundleId: APIFixture.bundleId)
        let json = try client.answerJSON(.transactionHistory(transactionId: "9000", filter: .init(), revision: nil))
        #expect(json["signedTransactions"] == nil)
        #expect(json["transactions"]?.arrayValue?.first?["transactionId"] == .string("9000"))
        #expect(json["hasMore"] == .bool(false))
    }
}
