import AppStore
import Crypto
import Foundation
import JSON
import LoopbackClient
import Testing

@testable import Server

/// `POST /v1/receipts` as RevenueCat's SDK posts it in StoreKit 2 mode (purchases-ios
/// `PostReceiptDataOperation`): the purchase, its AppTransaction and attributes, answered with
/// the customer; refusals in RevenueCat's shape, nothing stored.
@Suite("RevenueCat receipts")
struct ReceiptsAPITests {
    static func post(_ connection: LoopbackConnection, _ body: JSONValue, key: String = "pk_test_public") throws
        -> LoopbackResponse
    {
        try connection.request(
            "POST", "/v1/receipts",
            headers: ["Authorization": "Bearer \(key)", "Content-Type": "application/json", "X-Platform": "iOS"],
            body: Data(body.serialized().utf8))
    }

    /// The members the SDK sends with every receipt besides the ones read.
    static func receipt(_ members: [String: JSONValue]) -> JSONValue {
        .object(
            members.merging(
                [
                    "payload_version": .integer(1), "is_restore": .bool(false), "observer_mode": .bool(false),
                    "initiation_source": .string("purchase"), "sdk_originated": .bool(true), "product_id": .string("pro.monthly"),
                    "price": .number(9.99), "currency": .string("USD"),
                ], uniquingKeysWith: { mine, _ in mine }))
    }

    static func appTransaction(_ fixture: ServerFixture) throws -> String {
        try fixture.signer.sign(
            .object([
                "receiptType": .string("Sandbox"), "appAppleId": .integer(1234), "bundleId": .string("com.example.app"),
                "applicationVersion": .string("7.1"), "originalApplicationVersion": .string("1.0"),
                "originalPurchaseDate": .integer(1_600_000_000_000),
                "receiptCreationDate": .integer(Int64(Date().timeIntervalSince1970 * 1000) - 1000),
                "signedDate": .integer(Int64(Date().timeIntervalSince1970 * 1000)),
            ]))
    }

    @Test func aPurchaseItsAppTransactionAndAttributesAreTheCustomers() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let signed = try LinkingAPITests.storeKitTransaction(fixture, original: "7100000001")
        let answer = try Self.post(
            connection,
            Self.receipt([
                "app_user_id": .string("rita"), "fetch_token": .string(signed),
                "app_transaction": .string(try Self.appTransaction(fixture)),
                "attributes": .object([
                    "$email": .object(["value": .string("rita@example.com"), "updated_at_ms": .integer(1_700_000_000_000)]),
                    // RevenueCat's rules refuse this key; the purchase and the valid key go through.
                    "1bad key": .object(["value": .string("x"), "updated_at_ms": .integer(1_700_000_000_000)]),
                ]),
            ]))
        #expect(answer.status == 200, "\(answer.text)")
        let answered = try JSONValue(parsing: answer.body)["subscriber"]
        #expect(answered?["entitlements"]?["pro"] != nil, "\(answer.text)")
        let subscriber = try LinkingAPITests.subscriber(connection, "rita")
        #expect(subscriber["subscriptions"]?["pro.monthly"] != nil)
        #expect(subscriber["original_application_version"] == .string("1.0"))
        #expect(subscriber["subscriber_attributes"]?["$email"]?["value"] == .string("rita@example.com"))
        #expect(subscriber["subscriber_attributes"]?["1bad key"] == nil)
        // The SDK posts it again (a retry, a restore): nothing changes, the same answer.
        let again = try Self.post(
            connection, Self.receipt(["app_user_id": .string("rita"), "fetch_token": .string(signed), "is_restore": .bool(true)]))
        #expect(again.status == 200)
        // `last_seen` is the post's time (a contact), in whole seconds: the rest stays.
        func withoutContact(_ value: JSONValue) -> JSONValue {
            guard case .object(var members) = value else { return value }
            members["last_seen"] = nil
            return .object(members)
        }
        #expect(withoutContact(try LinkingAPITests.subscriber(connection, "rita")) == withoutContact(subscriber))
        // A sync with nothing to post answers (and makes) the customer.
        let empty = try Self.post(connection, Self.receipt(["app_user_id": .string("sam")]))
        #expect(empty.status == 200, "\(empty.text)")
        #expect(try JSONValue(parsing: empty.body)["subscriber"]?["original_app_user_id"] == .string("sam"))
    }

    /// Under keepWithOriginal, a purchase the app's own customer holds is refused to another
    /// (409, 7102); one held by a customer only tracking made from its token goes to the poster,
    /// until the app contacts that customer (a GET with the public key).
    @Test func restoreBehaviorHoldsForTheAppsCustomersOnly() throws {
        let fixture = try ServerFixture(
            demoOptions: #""trackNewPurchasesFromServerNotifications": true, "restoreBehavior": "keepWithOriginal""#)
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        func notice(_ original: String, token: String) throws {
            let payload = try fixture.signer.notification(
                type: "SUBSCRIBED", subtype: "INITIAL_BUY", originalTransactionId: original, appAccountToken: token,
                transactionId: original)
            #expect(try connection.postNotification(payload).status == 200)
        }
        func receipt(_ user: String, _ original: String) throws -> LoopbackResponse {
            try Self.post(
                connection,
                Self.receipt([
                    "app_user_id": .string(user),
                    "fetch_token": .string(try LinkingAPITests.storeKitTransaction(fixture, original: original)),
                ]))
        }
        let contacted = UUID().uuidString.lowercased()
        try notice("7100000010", token: contacted)
        let seen = try connection.request(
            "GET", "/v1/subscribers/\(contacted)", headers: ["Authorization": "Bearer pk_test_public"])
        #expect(seen.status == 200)
        let refused = try receipt("mallory", "7100000010")
        #expect(refused.status == 409, "\(refused.text)")
        #expect(try JSONValue(parsing: refused.body)["code"] == .integer(7102))
        #expect(try LinkingAPITests.owner(of: "7100000010", in: service) == contacted)

        let uncontacted = UUID().uuidString.lowercased()
        try notice("7100000011", token: uncontacted)
        #expect(try receipt("u1", "7100000011").status == 200)
        #expect(try LinkingAPITests.owner(of: "7100000011", in: service) == "u1")
        // Tracking's customer for the token, left with nothing, is gone, as if the post came first.
        let gone = try connection.request(
            "HEAD", "/v1/subscribers/\(uncontacted)", headers: ["Authorization": "Bearer sk_test_secret"])
        #expect(gone.status == 404)
        // The public key may not name a customer tracking made under RevenueDot's old form.
        let legacy = try Self.post(connection, Self.receipt(["app_user_id": .string("$RevenueDotAnonymous:7100000011")]))
        #expect(legacy.status == 403, "\(legacy.text)")
    }

    /// StoreKit testing in Xcode: the SDK posts its own receipt, base64 JSON whose
    /// `transactions` are each a jwsRepresentation.
    @Test func theSDKsStoreKit2ReceiptPostsEachTransaction() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let first = try LinkingAPITests.storeKitTransaction(fixture, original: "7100000002")
        let second = try LinkingAPITests.storeKitTransaction(fixture, original: "7100000003", product: "pro.yearly")
        let receipt = JSONValue.object([
            "environment": .string("xcode"), "bundleId": .string("com.example.app"),
            "transactions": .array([.string(first), .string(second)]), "subscriptionStatus": .object([:]),
        ])
        let token = Base64.encode(Array(receipt.serialized().utf8), alphabet: .standard)
        let answer = try Self.post(connection, Self.receipt(["app_user_id": .string("xena"), "fetch_token": .string(token)]))
        #expect(answer.status == 200, "\(answer.text)")
        let subscriptions = try LinkingAPITests.subscriber(connection, "xena")["subscriptions"]
        #expect(subscriptions?["pro.monthly"] != nil && subscriptions?["pro.yearly"] != nil)
    }

    /// Each refusal says why in one line, in RevenueCat's shape, and stores nothing.
    @Test func badReceiptsAreRefusedAndChangeNothing() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let signed = try LinkingAPITests.storeKitTransaction(fixture, original: "7100000004")
        let storeKit1 = Base64.encode([0x30, 0x82, 0x01, 0x00, 0x06, 0x09], alphabet: .standard)
        let cases: [(JSONValue, Int, Int64, String)] = [
            (Self.receipt(["fetch_token": .string(signed)]), 400, 7220, "app_user_id is empty"),
            (Self.receipt(["app_user_id": .string("ivy"), "fetch_token": .string(storeKit1)]), 422, 7103, "storeKit2"),
            (Self.receipt(["app_user_id": .string("ivy"), "fetch_token": .string("not a token")]), 400, 7226, "fetch_token"),
            (Self.receipt(["app_user_id": .string("ivy"), "fetch_token": .integer(1)]), 400, 7226, "fetch_token"),
            (
                Self.receipt(["app_user_id": .string("ivy"), "fetch_token": .string(signed), "attributes": .string("x")]), 400,
                7226, "attributes"
            ),
            (
                Self.receipt(["app_user_id": .string("ivy"), "fetch_token": .string("eyJhbGciOiJFUzI1NiJ9.eyJ4IjoxfQ.c2ln")]),
                401, 7103, "x5c"
            ),
            (.array([]), 400, 7226, "receipt"),
        ]
        try expectRevenueCatRefusals(cases) { try Self.post(connection, $0) }
        #expect(try Self.post(connection, Self.receipt(["app_user_id": .string("ivy")]), key: "nope").status == 401)
        #expect(try LinkingAPITests.events(fixture).isEmpty)
        let ivy = try connection.request("HEAD", "/v1/subscribers/ivy", headers: ["Authorization": "Bearer sk_test_secret"])
        #expect(ivy.status == 404)
    }
}
