import Crypto
import Foundation
import JSON
import LoopbackClient
import Testing

@testable import Server

/// `presented_offering_identifier` of RevenueCat's receipt (and `presentedOfferingId` of
/// `POST /v1/subscribers/{id}/transactions`): kept with the purchase, on its events as
/// `presented_offering_id`; a malformed one refused before anything is stored.
@Suite("Presented offerings")
struct PresentedOfferingAPITests {
    let fixture: ServerFixture
    let service: RevenueDotService
    let connection: LoopbackConnection

    init() throws {
        fixture = try ServerFixture()
        service = try fixture.startService()
        connection = try LoopbackConnection(port: service.port)
    }

    static func offerings(_ fixture: ServerFixture, of original: String) throws -> [JSONValue?] {
        try LinkingAPITests.events(fixture)
            .filter { $0.json["original_transaction_id"] == .string(original) }
            .map { $0.json["presented_offering_id"] }
    }

    @Test func theReceiptsOfferingIsOnThePurchasesEvents() throws {
        defer { service.shutdown() }
        let signed = try LinkingAPITests.storeKitTransaction(fixture, original: "7200000001")
        let answer = try ReceiptsAPITests.post(
            connection,
            ReceiptsAPITests.receipt([
                "app_user_id": .string("olga"), "fetch_token": .string(signed),
                "presented_offering_identifier": .string("spring"),
            ]))
        #expect(answer.status == 200, "\(answer.text)")
        #expect(try Self.offerings(fixture, of: "7200000001") == [.string("spring")])
        // Apple's later notice of the purchase (auto-renew off) carries it too.
        let notice = try fixture.signer.notification(
            type: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", originalTransactionId: "7200000001")
        #expect(try connection.postNotification(notice).status == 200)
        #expect(try Self.offerings(fixture, of: "7200000001") == [.string("spring"), .string("spring")])

        // A receipt without one (a restore at the next launch) makes events without.
        let other = try LinkingAPITests.storeKitTransaction(fixture, original: "7200000002")
        let plain = try ReceiptsAPITests.post(
            connection,
            ReceiptsAPITests.receipt([
                "app_user_id": .string("olga"), "fetch_token": .string(other), "presented_offering_identifier": .null,
            ]))
        #expect(plain.status == 200, "\(plain.text)")
        #expect(try Self.offerings(fixture, of: "7200000002") == [nil])
    }

    /// StoreKit testing's receipt holds every transaction: the offering is `product_id`'s.
    @Test func aReceiptOfSeveralTransactionsGivesItToTheNamedProductOnly() throws {
        defer { service.shutdown() }
        let monthly = try LinkingAPITests.storeKitTransaction(fixture, original: "7200000003")
        let yearly = try LinkingAPITests.storeKitTransaction(fixture, original: "7200000004", product: "pro.yearly")
        let receipt = JSONValue.object(["transactions": .array([.string(monthly), .string(yearly)])])
        let token = Base64.encode(Array(receipt.serialized().utf8), alphabet: .standard)
        let answer = try ReceiptsAPITests.post(
            connection,
            ReceiptsAPITests.receipt([
                "app_user_id": .string("pia"), "fetch_token": .string(token), "product_id": .string("pro.yearly"),
                "presented_offering_identifier": .string("annual"),
            ]))
        #expect(answer.status == 200, "\(answer.text)")
        #expect(try Self.offerings(fixture, of: "7200000003") == [nil])
        #expect(try Self.offerings(fixture, of: "7200000004") == [.string("annual")])
    }

    @Test func theTransactionsEndpointTakesOneToo() throws {
        defer { service.shutdown() }
        let signed = try LinkingAPITests.storeKitTransaction(fixture, original: "7200000005")
        let posted = try connection.postTransaction(signed, for: "quinn", presentedOfferingId: "spring")
        #expect(posted.status == 200, "\(posted.text)")
        #expect(try Self.offerings(fixture, of: "7200000005") == [.string("spring")])

        // Posted first without one (a transaction listener), then with it (the purchase flow):
        // the offering is news, kept though the content is the same; said again, it is not.
        let other = try LinkingAPITests.storeKitTransaction(fixture, original: "7200000006")
        #expect(try connection.postTransaction(other, for: "quinn").status == 200)
        let before = try PostedTransactionRepostTests.postedRows(fixture).posted
        #expect(try connection.postTransaction(other, for: "quinn", presentedOfferingId: "late").status == 200)
        #expect(try connection.postTransaction(other, for: "quinn", presentedOfferingId: "late").status == 200)
        #expect(try connection.postTransaction(other, for: "quinn").status == 200)
        #expect(try PostedTransactionRepostTests.postedRows(fixture).posted == before + 1)
        let notice = try fixture.signer.notification(
            type: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", originalTransactionId: "7200000006")
        #expect(try connection.postNotification(notice).status == 200)
        #expect(try Self.offerings(fixture, of: "7200000006") == [nil, .string("late")])
        // Another offering, then the first again: each is the purchase's from then on.
        for offering in ["later", "late"] {
            #expect(try connection.postTransaction(other, for: "quinn", presentedOfferingId: offering).status == 200)
        }
        #expect(try PostedTransactionRepostTests.postedRows(fixture).posted == before + 3)
        let enabled = try fixture.signer.notification(
            type: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_ENABLED", originalTransactionId: "7200000006")
        #expect(try connection.postNotification(enabled).status == 200)
        #expect(try Self.offerings(fixture, of: "7200000006").last == .string("late"))
    }

    /// A malformed offering in RevenueCat's receipt is left out and the purchase goes through
    /// (the SDK finishes a transaction a 4xx answers, so refusing would lose the purchase); the
    /// app's own post of one is refused, nothing stored.
    @Test func aMalformedOfferingIsLeftOutOrRefused() throws {
        defer { service.shutdown() }
        let long = String(repeating: "o", count: PresentedOffering.maxBytes + 1)
        for (index, offering) in [JSONValue.integer(3), .string(long), .string("a\u{7}b")].enumerated() {
            let original = "720000001\(index)"
            let signed = try LinkingAPITests.storeKitTransaction(fixture, original: original)
            let answer = try ReceiptsAPITests.post(
                connection,
                ReceiptsAPITests.receipt([
                    "app_user_id": .string("rui"), "fetch_token": .string(signed),
                    "presented_offering_identifier": offering,
                ]))
            #expect(answer.status == 200, "\(answer.text)")
            #expect(try Self.offerings(fixture, of: original) == [nil])
        }
        #expect(PresentedOffering.read(.string(long), name: "x") == .refused("x is longer than 256 bytes"))
        #expect(PresentedOffering.read(.string("a\u{7}b"), name: "x") == .refused("x holds a control character"))

        let signed = try LinkingAPITests.storeKitTransaction(fixture, original: "7200000020")
        let own = try connection.request(
            "POST", "/v1/subscribers/sue/transactions", headers: ["Authorization": "Bearer pk_test_public"],
            body: Data(
                JSONValue.object(["signedTransaction": .string(signed), "presentedOfferingId": .array([])]).serialized().utf8))
        #expect(own.status == 400, "\(own.text)")
        #expect(own.text.contains("presentedOfferingId must be a string"), "\(own.text)")
        #expect(try Self.offerings(fixture, of: "7200000020").isEmpty)
        let sue = try connection.request("HEAD", "/v1/subscribers/sue", headers: ["Authorization": "Bearer sk_test_secret"])
        #expect(sue.status == 404)
    }
}
