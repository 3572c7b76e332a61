import AppStore
import Foundation
import JSON
import LoopbackClient
import Testing

@testable import Server
@_spi(StoreSQL) @testable import Storage
@testable import Tools

/// Linking purchases to customers through the real server: posted transactions, held history,
/// transfers, `appAccountToken` and `trackNewPurchasesFromServerNotifications`.
@Suite("Linking over HTTP")
struct LinkingAPITests {
    struct StoredEvent: Equatable {
        var type: String
        var customer: String?
        var sequence: Int64?
        var json: JSONValue
    }

    /// Every event the service committed, in insertion order (read after it shut down).
    static func events(_ fixture: ServerFixture) throws -> [StoredEvent] {
        let store = try Store(path: fixture.databasePath)
        defer { store.close() }
        return try store.read { (rows) throws(StoreError) -> [StoredEvent] in
            try rows.query("SELECT type, customer, sequence, json FROM events ORDER BY rowid").map { row in
                StoredEvent(
                    type: row[0].textValue ?? "", customer: row[1].textValue, sequence: row[2].integerValue,
                    json: (try? JSONValue(parsing: Data((row[3].textValue ?? "").utf8))) ?? .null)
            }
        }
    }

    static func subscriber(_ connection: LoopbackConnection, _ user: String) throws -> JSONValue {
        let response = try connection.request(
            "GET", "/v1/subscribers/\(user)", headers: ["Authorization": "Bearer sk_test_secret"])
        #expect(response.status == 200 || response.status == 201)
        return try JSONValue(parsing: response.body)["subscriber"] ?? .null
    }

    static func link(_ connection: LoopbackConnection, _ user: String, _ signed: String) throws -> Int {
        try connection.postTransaction(signed, for: user).status
    }

    /// The StoreKit 2 transaction an app posts for purchase `original`.
    static func storeKitTransaction(
        _ fixture: ServerFixture, original: String, id: String? = nil, product: String = "pro.monthly",
        environment: String = "Sandbox"
    ) throws
        -> String
    {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        return try fixture.signer.sign(
            .object([
                "transactionId": .string(id ?? original), "originalTransactionId": .string(original),
                "bundleId": .string("com.example.app"), "productId": .string(product), "purchaseDate": .integer(now - 1000),
                "originalPurchaseDate": .integer(now - 1000), "expiresDate": .integer(now + 30 * 86_400_000),
                "type": .string("Auto-Renewable Subscription"), "inAppOwnershipType": .string("PURCHASED"),
                "environment": .string(environment), "signedDate": .integer(now - 1000), "price": .integer(9990),
                "currency": .string("USD"),
            ]))
    }

    /// With tracking off, notifications about an unknown purchase wait; linking applies the whole
    /// stored history to the customer, in order, with the events it makes.
    @Test func heldHistoryIsAppliedWhenThePurchaseIsLinked() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        let connection = try LoopbackConnection(port: service.port)
        let original = "6100000001"
        for (type, subtype) in [("SUBSCRIBED", "INITIAL_BUY"), ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED")] {
            let payload = try fixture.signer.notification(
                type: type, subtype: subtype, originalTransactionId: original, transactionId: original)
            #expect(try connection.postNotification(payload).status == 200)
        }
        #expect(try Self.subscriber(connection, "alice")["subscriptions"] == .object([:]))

        #expect(try Self.link(connection, "alice", try Self.storeKitTransaction(fixture, original: original)) == 200)
        let alice = try Self.subscriber(connection, "alice")
        let subscription = alice["subscriptions"]?["pro.monthly"]
        #expect(subscription != nil)
        // The held AUTO_RENEW_DISABLED reached alice's state: unsubscribe detected.
        #expect(subscription?["unsubscribe_detected_at"]?.stringValue != nil)
        #expect(alice["entitlements"]?["pro"]?["product_identifier"] == .string("pro.monthly"))
        service.shutdown()

        let events = try Self.events(fixture).filter { $0.customer == "alice" }
        #expect(events.map(\.type) == ["INITIAL_PURCHASE", "CANCELLATION"])
        #expect(events.map(\.sequence) == [1, 2])
        #expect(events.allSatisfy { $0.json["app_user_id"] == .string("alice") })
        #expect(events.last?.json["cancel_reason"] == .string("UNSUBSCRIBE"))
    }

    /// A purchase posted by a second customer moves to them, with a TRANSFER event naming both.
    @Test func postingAnOwnedPurchaseTransfersIt() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        let connection = try LoopbackConnection(port: service.port)
        let signed = try Self.storeKitTransaction(fixture, original: "6200000001")
        #expect(try Self.link(connection, "alice", signed) == 200)
        #expect(try Self.subscriber(connection, "alice")["entitlements"]?["pro"] != nil)

        #expect(try Self.link(connection, "bob", signed) == 200)
        #expect(try Self.subscriber(connection, "bob")["subscriptions"]?["pro.monthly"] != nil)
        #expect(try Self.subscriber(connection, "bob")["entitlements"]?["pro"] != nil)
        #expect(try Self.subscriber(connection, "alice")["subscriptions"] == .object([:]))
        #expect(try Self.subscriber(connection, "alice")["entitlements"] == .object([:]))
        service.shutdown()

        let transfers = try Self.events(fixture).filter { $0.type == "TRANSFER" }
        #expect(transfers.count == 1)
        #expect(transfers.first?.json["transferred_from"] == .array([.string("alice")]))
        #expect(transfers.first?.json["transferred_to"] == .array([.string("bob")]))
    }

    /// An `appAccountToken` that is a known customer's id links a new purchase to that customer,
    /// even with tracking off.
    @Test func appAccountTokenOfAKnownCustomerLinksTheNotification() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        let connection = try LoopbackConnection(port: service.port)
        let user = UUID().uuidString.lowercased()
        // The customer exists once the app posted one purchase for them.
        #expect(try Self.link(connection, user, try Self.storeKitTransaction(fixture, original: "6300000001")) == 200)

        let payload = try fixture.signer.notification(
            type: "SUBSCRIBED", subtype: "INITIAL_BUY", originalTransactionId: "6300000002", appAccountToken: user,
            productId: "pro.yearly")
        #expect(try connection.postNotification(payload).status == 200)
        let subscriptions = try Self.subscriber(connection, user)["subscriptions"]
        #expect(subscriptions?["pro.monthly"] != nil)
        #expect(subscriptions?["pro.yearly"] != nil)
        service.shutdown()
    }

    /// With tracking on, a never-seen purchase goes at once to the customer named by its token,
    /// or (no token, or no such customer, as RevenueCat does) to an anonymous customer; linking the
    /// anonymous one later transfers it.
    @Test func trackingOnAppliesNewPurchasesAtOnce() throws {
        let fixture = try ServerFixture(demoOptions: #""trackNewPurchasesFromServerNotifications": true"#)
        let service = try fixture.startService()
        let connection = try LoopbackConnection(port: service.port)
        let user = UUID().uuidString.lowercased()
        #expect(try Self.link(connection, user, try Self.storeKitTransaction(fixture, original: "6400000000")) == 200)
        let named = try fixture.signer.notification(
            type: "SUBSCRIBED", subtype: "INITIAL_BUY", originalTransactionId: "6400000001", appAccountToken: user)
        #expect(try connection.postNotification(named).status == 200)
        #expect(try Self.subscriber(connection, user)["entitlements"]?["pro"] != nil)

        let strangerToken = UUID().uuidString
        let stranger = try fixture.signer.notification(
            type: "SUBSCRIBED", subtype: "INITIAL_BUY", originalTransactionId: "6400000003", appAccountToken: strangerToken)
        #expect(try connection.postNotification(stranger).status == 200)
        let unnamed = try fixture.signer.notification(
            type: "SUBSCRIBED", subtype: "INITIAL_BUY", originalTransactionId: "6400000002")
        #expect(try connection.postNotification(unnamed).status == 200)
        let anonymous = try Self.owner(of: "6400000002", in: service)
        // A new database writes them as RevenueCat does, so consumers tell them from named ones.
        #expect(anonymous.wholeMatch(of: /\$RCAnonymousID:[0-9a-f]{32}/) != nil, "\(anonymous)")
        let encoded = anonymous.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["$", ":"]))!
        #expect(try Self.subscriber(connection, encoded)["subscriptions"]?["pro.monthly"] != nil)

        #expect(try Self.link(connection, "carol", try Self.storeKitTransaction(fixture, original: "6400000002")) == 200)
        #expect(try Self.subscriber(connection, "carol")["subscriptions"]?["pro.monthly"] != nil)
        // The anonymous owner was merged into carol (an alias now), not transferred from: both
        // ids show the one customer, whose first id (RevenueCat's original_app_user_id) is the
        // anonymous one.
        #expect(try Self.subscriber(connection, encoded) == Self.subscriber(connection, "carol"))
        #expect(try Self.subscriber(connection, "carol")["original_app_user_id"] == .string(anonymous))
        service.shutdown()

        let events = try Self.events(fixture)
        #expect(events.contains { $0.type == "INITIAL_PURCHASE" && $0.customer == user })
        // A UUID token no customer has names a new customer, in lower case.
        #expect(events.contains { $0.type == "INITIAL_PURCHASE" && $0.customer == strangerToken.lowercased() })
        #expect(!events.contains { $0.type == "TRANSFER" })
    }

    /// Through the store: a purchase's first notice to arrive names no token (tracking gives it
    /// an anonymous customer of its own), the purchase's own notice with the token arrives
    /// second; the token's customer ends with it, and the anonymous one is its alias.
    @Test func theTokensCustomerTakesThePurchaseFromTrackingsAnonymousOne() throws {
        let fixture = try ServerFixture(demoOptions: #""trackNewPurchasesFromServerNotifications": true"#)
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let token = UUID().uuidString.lowercased()
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let disable = try fixture.signer.notification(
            type: "DID_CHANGE_RENEWAL_STATUS", subtype: "AUTO_RENEW_DISABLED", originalTransactionId: "6500000001",
            transactionId: "6500000001", atMs: now)
        let buy = try fixture.signer.notification(
            type: "SUBSCRIBED", subtype: "INITIAL_BUY", originalTransactionId: "6500000001", appAccountToken: token,
            transactionId: "6500000001", atMs: now - 60_000)
        #expect(try connection.postNotification(disable).status == 200)
        #expect(try connection.postNotification(buy).status == 200)
        let customer = try Self.subscriber(connection, token)
        #expect(customer["entitlements"]?["pro"] != nil, "\(customer)")
        // The anonymous one came first only by arriving first: the token's id stays the first.
        #expect(customer["original_app_user_id"] == .string(token))
        let aliases = try service.store.read { (rows) throws(StoreError) in
            try rows.query("SELECT alias, app_user_id FROM customer_aliases WHERE app_id = 'demo'", [])
        }
        #expect(aliases.count == 1 && aliases.first?.last == .text(token), "\(aliases)")
        #expect(aliases.first?.first?.textValue?.hasPrefix("$RCAnonymousID:") == true, "\(aliases)")
    }

    /// The customer who owns subscription `originalTransactionId`.
    static func owner(of originalTransactionId: String, in service: RevenueDotService) throws -> String {
        let owner = try service.store.read { (rows) throws(StoreError) in
            try rows.query(
                "SELECT owner FROM purchases WHERE app_id = 'demo' AND purchase_key = ?", [.text("s:" + originalTransactionId)])
        }
        return owner.first?.first?.textValue ?? ""
    }
}
