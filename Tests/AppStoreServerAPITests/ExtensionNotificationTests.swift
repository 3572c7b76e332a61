import AppStore
import AppStoreServerAPI
import AppStoreServerAPISimulator
import Foundation
import JSON
import Testing

/// A renewal-date extension made through the simulated API is told to the app's server as
/// Apple tells it: RENEWAL_EXTENDED per subscription, and a mass extension's SUMMARY, in the
/// notification history whether or not anyone received them.
@Suite struct ExtensionNotificationTests {
    let fixture: APIFixture
    init() throws { fixture = try APIFixture() }

    private func history(_ type: NotificationTypeV2) throws -> [JSONValue] {
        var request = NotificationHistoryRequest(startDate: APIFixture.nowMs - 86_400_000, endDate: APIFixture.nowMs + 3_600_000)
        request.notificationType = type
        let items = try fixture.client.notificationHistoryPage(request).notificationHistory ?? []
        return try items.map { try UnverifiedPayload.json(of: try #require($0.signedPayload)) }
    }

    @Test func oneExtensionSendsRenewalExtendedWithTheNewDates() throws {
        let now = APIFixture.nowMs
        fixture.store.addTransaction(APIFixture.transaction("7400", expires: now + 86_400_000), bundleId: APIFixture.bundleId)
        fixture.store.setRenewalInfo(
            [
                "originalTransactionId": .string("7400"), "autoRenewStatus": .integer(1),
                "renewalDate": .integer(now + 86_400_000),
            ],
            originalTransactionId: "7400")
        let request = ExtendRenewalDateRequest(extendByDays: 3, extendReasonCode: .customerSatisfaction, requestIdentifier: "x1")
        _ = try fixture.client.extendRenewalDate(request, originalTransactionId: "7400")
        let sent = try history(.renewalExtended)
        #expect(sent.count == 1)
        let data = sent.first?["data"]
        #expect(data?["transactionInfo"]?["expiresDate"] == .integer(now + 4 * 86_400_000))
        #expect(data?["renewalInfo"]?["renewalDate"] == .integer(now + 4 * 86_400_000))
        #expect(data?["environment"] == .string("Sandbox"))
        // A retry of the same request is answered alike and tells nothing again.
        _ = try fixture.client.extendRenewalDate(request, originalTransactionId: "7400")
        #expect(try history(.renewalExtended).count == 1)
    }

    /// Each active subscription's current period once: not its older period, nor a refunded one.
    @Test func aMassExtensionSendsOneRenewalExtendedEachThenItsSummary() throws {
        let now = APIFixture.nowMs
        let day: Int64 = 86_400_000
        let store = fixture.store
        store.addTransaction(APIFixture.transaction("7500", expires: now + day), bundleId: APIFixture.bundleId)
        store.addTransaction(
            APIFixture.transaction("7501", original: "7500", expires: now + 2 * day), bundleId: APIFixture.bundleId)
        store.addTransaction(APIFixture.transaction("7600", expires: now + day), bundleId: APIFixture.bundleId)
        store.addTransaction(APIFixture.transaction("7700", expires: now + day, revoked: true), bundleId: APIFixture.bundleId)
        let request = MassExtendRenewalDateRequest(
            extendByDays: 2, extendReasonCode: .serviceIssueOrOutage, requestIdentifier: "m9", productId: "pro.monthly")
        _ = try fixture.client.extendRenewalDatesForAllActiveSubscribers(request)
        let extended = try history(.renewalExtended).compactMap { $0["data"]?["transactionInfo"]?["transactionId"] }
        #expect(Set(extended) == [.string("7501"), .string("7600")])
        let summaries = try history(.renewalExtension)
        #expect(summaries.count == 1)
        #expect(summaries.first?["subtype"] == .string("SUMMARY"))
        #expect(summaries.first?["summary"]?["succeededCount"] == .integer(2))
        #expect(summaries.first?["summary"]?["requestIdentifier"] == .string("m9"))
        #expect(store.expiresDate(originalTransactionId: "7500", bundleId: APIFixture.bundleId) == now + 4 * day)
        #expect(store.expiresDate(originalTransactionId: "7700", bundleId: APIFixture.bundleId) == now + day)
        // The same request identifier again extends nothing and sends nothing.
        _ = try fixture.client.extendRenewalDatesForAllActiveSubscribers(request)
        #expect(try history(.renewalExtended).count == 2)
        #expect(store.expiresDate(originalTransactionId: "7600", bundleId: APIFixture.bundleId) == now + 3 * day)
    }
}
