import AppStore
import Foundation
import JSON
import LoopbackClient
import Testing
import Threads

@testable import Server
@_spi(StoreSQL) @testable import Storage
@testable import Subscriptions
@testable import Tools

/// Customers over HTTP as RevenueCat serves them: get-or-create, first and last seen, aliases
/// usable in every path, deletion that replay keeps, and the restore behaviour.
@Suite("Customers over HTTP")
struct CustomersAPITests {
    func get(_ connection: LoopbackConnection, _ user: String, key: String = "sk_test_secret") throws -> (Int, JSONValue) {
        let response = try connection.request("GET", "/v1/subscribers/\(user)", headers: ["Authorization": "Bearer \(key)"])
        return (response.status, (try? JSONValue(parsing: response.body))?["subscriber"] ?? .null)
    }

    func send(_ connection: LoopbackConnection, _ method: String, _ path: String, _ body: String = "") throws -> (
        Int, JSONValue
    ) {
        let response = try connection.request(
            method, path, headers: ["Authorization": "Bearer sk_test_secret", "Content-Type": "application/json"],
            body: Data(body.utf8))
        return (response.status, (try? JSONValue(parsing: response.body)) ?? .null)
    }

    @Test func getCreatesOnceAndTheAppsContactsAreLastSeen() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        let connection = try LoopbackConnection(port: service.port)
        let (created, first) = try get(connection, "zoe")
        #expect(created == 201)
        Thread.sleep(forTimeInterval: 1.1)
        let (again, second) = try get(connection, "zoe")
        #expect(again == 200)
        #expect(second["first_seen"] == first["first_seen"])
        // A backend read is no contact: last seen stays the first sighting.
        #expect(second["last_seen"] == first["first_seen"])
        // The app (its public key) is.
        let (_, byApp) = try get(connection, "zoe", key: "pk_test_public")
        #expect(byApp["last_seen"] != first["first_seen"])
        let (_, after) = try get(connection, "zoe")
        #expect(after["last_seen"] == byApp["last_seen"])
        Thread.sleep(forTimeInterval: 1.1)
        // A HEAD is a probe (curl -I, a monitor), no contact, even the app's with X-Platform.
        let probe = try connection.request(
            "HEAD", "/v1/subscribers/zoe", headers: ["Authorization": "Bearer pk_test_public", "X-Platform": "ios"])
        #expect(probe.status == 200)
        #expect(try get(connection, "zoe").1["last_seen"] == byApp["last_seen"])
        // RevenueCat's X-Platform header makes a request a contact, whatever the key.
        let platform = try connection.request(
            "GET", "/v1/subscribers/zoe", headers: ["Authorization": "Bearer sk_test_secret", "X-Platform": "ios"])
        let withPlatform = try JSONValue(parsing: platform.body)["subscriber"]
        #expect(withPlatform?["last_seen"] != byApp["last_seen"])
        // Written at the stop (and every few seconds before), kept across a restart.
        service.shutdown()
        let restarted = try fixture.startService()
        defer { restarted.shutdown() }
        let (_, kept) = try get(try LoopbackConnection(port: restarted.port), "zoe")
        #expect(kept["last_seen"] == withPlatform?["last_seen"])
    }

    @Test func aliasesWorkInEveryPathAndDeletionSurvivesReplay() throws {
        let fixture = try ServerFixture()
        var service = try fixture.startService()
        var connection = try LoopbackConnection(port: service.port)
        #expect(
            try LinkingAPITests.link(
                connection, "ann", try LinkingAPITests.storeKitTransaction(fixture, original: "6500000001")) == 200)
        let (aliased, _) = try send(connection, "POST", "/v1/subscribers/ann/alias", #"{"new_app_user_id": "ann@example.com"}"#)
        #expect(aliased == 200)
        let (status, byAlias) = try get(connection, "ann%40example.com")
        #expect(status == 200)
        #expect(byAlias["original_app_user_id"] == .string("ann"))
        #expect(byAlias["subscriptions"]?["pro.monthly"] != nil)
        // A post under the alias links to the same customer.
        #expect(
            try LinkingAPITests.link(
                connection, "ann%40example.com", try LinkingAPITests.storeKitTransaction(fixture, original: "6500000002"))
                == 200)
        #expect(try get(connection, "ann").1["entitlements"]?["pro"] != nil)
        #expect(try send(connection, "POST", "/v1/subscribers/ann/alias", "{}").0 == 400)

        // Deleted by its alias: identity gone, purchases unlinked.
        let (deleted, answer) = try send(connection, "DELETE", "/v1/subscribers/ann%40example.com")
        #expect(deleted == 200)
        #expect(answer == .object(["app_user_id": .string("ann@example.com"), "deleted": .bool(true)]))
        // A DELETE declares no length, so its connection closes after the answer.
        connection = try LoopbackConnection(port: service.port)
        #expect(try send(connection, "DELETE", "/v1/subscribers/ann").0 == 404)
        service.shutdown()

        func rows(_ sql: String) throws -> [String] {
            try StoreReader(path: fixture.databasePath).read { (rows) throws(StoreError) in
                try rows.query(sql).map {
                    $0.map { $0.textValue ?? $0.integerValue.map(String.init) ?? "null" }.joined(separator: " ")
                }
            }
        }
        let state = "SELECT purchase_key, coalesce(owner, '-') FROM purchases ORDER BY 1"
        #expect(try rows(state) == ["s:6500000001 -", "s:6500000002 -"])
        #expect(try rows("SELECT count(*) FROM customers") == ["0"])
        #expect(try rows("SELECT count(*) FROM customer_aliases") == ["0"])
        #expect(try rows("SELECT count(*) FROM customer_contacts") == ["0"])
        let before = try rows("SELECT purchase_key, json FROM purchases ORDER BY 1")
        #expect(try ReplayCommand(arguments: ["--config", fixture.configPath]).run() == 0)
        #expect(try rows("SELECT purchase_key, json FROM purchases ORDER BY 1") == before)
        #expect(try rows("SELECT count(*) FROM customers") == ["0"])

        service = try fixture.startService()
        defer { service.shutdown() }
        connection = try LoopbackConnection(port: service.port)
        let (recreated, empty) = try get(connection, "ann")
        #expect(recreated == 201)
        #expect(empty["subscriptions"] == .object([:]))
    }

    /// The SDK's `logIn` (`POST /v1/subscribers/identify`), row by row of RevenueCat's table: an
    /// anonymous customer merges into a new identified one, or one without an anonymous id yet;
    /// a second anonymous device, or an identified customer switching accounts, merges nothing.
    /// 201 when the customer logged in to was made; the same state after `replay`.
    @Test func logInMergesAsRevenueCatsTableSays() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        let connection = try LoopbackConnection(port: service.port)
        func identify(_ from: String, _ to: String, key: String = "pk_test_public") throws -> (Int, JSONValue) {
            let response = try connection.request(
                "POST", "/v1/subscribers/identify",
                headers: ["Authorization": "Bearer \(key)", "Content-Type": "application/json"],
                body: Data(JSONValue.object(["app_user_id": .string(from), "new_app_user_id": .string(to)]).serialized().utf8))
            return (response.status, (try? JSONValue(parsing: response.body))?["subscriber"] ?? .null)
        }
        func products(_ user: String) throws -> [String] {
            let subscriptions = try get(connection, user.replacingOccurrences(of: "$", with: "%24")).1["subscriptions"]
            guard case .object(let members)? = subscriptions else { return [] }
            return members.keys.sorted()
        }
        for (user, original, product) in [
            ("$RCAnonymousID:a1", "6510000001", "pro.monthly"), ("$RCAnonymousID:a2", "6510000002", "pro.yearly"),
            ("$RCAnonymousID:a3", "6510000003", "pro.weekly"),
        ] {
            let signed = try LinkingAPITests.storeKitTransaction(fixture, original: original, product: product)
            #expect(try LinkingAPITests.link(connection, user, signed) == 200)
        }
        // Anonymous to a new id: merged, and made (201).
        let (made, ann) = try identify("$RCAnonymousID:a1", "ann")
        #expect(made == 201)
        #expect(ann["subscriptions"]?["pro.monthly"] != nil)
        // A second anonymous device to ann, who has an anonymous id now: nothing merges.
        let (known, annAgain) = try identify("$RCAnonymousID:a2", "ann")
        #expect(known == 200)
        #expect(annAgain["subscriptions"]?["pro.yearly"] == nil)
        #expect(try products("$RCAnonymousID:a2") == ["pro.yearly"])
        // Anonymous to a known id with no anonymous id: merged, 200.
        #expect(try get(connection, "bob").0 == 201)
        #expect(try identify("$RCAnonymousID:a3", "bob").0 == 200)
        #expect(try products("bob") == ["pro.weekly"])
        // Identified to another id: nothing merges; the new one is made.
        let (switched, carol) = try identify("bob", "carol", key: "sk_test_secret")
        #expect(switched == 201)
        #expect(carol["subscriptions"] == .object([:]))
        #expect(try products("bob") == ["pro.weekly"])
        // Logging in again changes nothing.
        #expect(try identify("$RCAnonymousID:a1", "ann").0 == 200)
        #expect(try products("ann") == ["pro.monthly"])
        #expect(try identify("ann", "", key: "sk_test_secret").0 == 400)
        #expect(try send(connection, "POST", "/v1/subscribers/identify", #"{"new_app_user_id": "ann"}"#).0 == 400)
        // A customer named "identify" is still read by its id.
        #expect(try get(connection, "identify").0 == 201)
        service.shutdown()

        func rows(_ sql: String) throws -> [String] {
            try StoreReader(path: fixture.databasePath).read { (rows) throws(StoreError) in
                try rows.query(sql).map {
                    $0.map { $0.textValue ?? $0.integerValue.map(String.init) ?? "null" }.joined(separator: " ")
                }
            }
        }
        let state = ["SELECT purchase_key, json FROM purchases ORDER BY 1", "SELECT * FROM customer_aliases ORDER BY 1, 2, 3"]
        let before = try state.map(rows)
        #expect(try ReplayCommand(arguments: ["--config", fixture.configPath]).run() == 0)
        #expect(try state.map(rows) == before)
    }

    /// The public key cannot take an identified customer's purchases by aliasing its id.
    @Test func thePublicKeyCannotJoinAnotherIdentifiedCustomerWithPurchases() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let signed = try LinkingAPITests.storeKitTransaction(fixture, original: "6500000009")
        #expect(try LinkingAPITests.link(connection, "victim", signed) == 200)
        let request = { (key: String) in
            try connection.request(
                "POST", "/v1/subscribers/mallory/alias",
                headers: ["Authorization": "Bearer \(key)", "Content-Type": "application/json"],
                body: Data(#"{"new_app_user_id": "victim"}"#.utf8))
        }
        let refused = try request("pk_test_public")
        #expect(refused.status == 409)
        #expect(try JSONValue(parsing: refused.body)["code"] == .integer(7255))
        #expect(try get(connection, "victim").1["subscriptions"]?["pro.monthly"] != nil)
        // Named by one of its aliases, the refusal names the alias, not the customer's own id.
        let victimAlias = try connection.request(
            "POST", "/v1/subscribers/victim/alias",
            headers: ["Authorization": "Bearer sk_test_secret", "Content-Type": "application/json"],
            body: Data(#"{"new_app_user_id": "victim-old"}"#.utf8))
        #expect(victimAlias.status == 200)
        let byAlias = try connection.request(
            "POST", "/v1/subscribers/mallory/alias",
            headers: ["Authorization": "Bearer pk_test_public", "Content-Type": "application/json"],
            body: Data(#"{"new_app_user_id": "victim-old"}"#.utf8))
        #expect(byAlias.status == 409)
        #expect(byAlias.text.contains("victim-old names another identified customer"), "\(byAlias.text)")
        #expect(!byAlias.text.contains("victim "), "the alias's customer is not named: \(byAlias.text)")
        // The backend may join them.
        #expect(try request("sk_test_secret").status == 200)
        #expect(try get(connection, "mallory").1 == get(connection, "victim").1)
        #expect(try get(connection, "mallory").1["subscriptions"]?["pro.monthly"] != nil)
    }

    /// Nor the grants the backend gave an identified customer that has no purchase.
    @Test func thePublicKeyCannotJoinAnotherIdentifiedCustomerWithGrants() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let grant = #"{"duration": "monthly"}"#
        #expect(try PromotionalAPITests().post(connection, "/v1/subscribers/vera/entitlements/pro/promotional", grant).0 == 201)
        let refused = try connection.request(
            "POST", "/v1/subscribers/mallory/alias",
            headers: ["Authorization": "Bearer pk_test_public", "Content-Type": "application/json"],
            body: Data(#"{"new_app_user_id": "vera"}"#.utf8))
        #expect(refused.status == 409)
        #expect(String(decoding: refused.body, as: UTF8.self).contains("purchases or grants"))
        #expect(try get(connection, "vera").1["entitlements"]?["pro"] != nil)
        #expect(try get(connection, "mallory").1["entitlements"] == .object([:]))
    }

    @Test func keepWithOriginalRefusesToMoveAnIdentifiedCustomersPurchase() throws {
        let fixture = try ServerFixture(demoOptions: #""restoreBehavior": "keepWithOriginal""#)
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let signed = try LinkingAPITests.storeKitTransaction(fixture, original: "6500000003")
        #expect(try LinkingAPITests.link(connection, "gus", signed) == 200)
        let refused = try connection.postTransaction(signed, for: "hal")
        #expect(refused.status == 409)
        // The same post again (a restore retried) is answered the same.
        #expect(try connection.postTransaction(signed, for: "hal").status == 409)
        // The owner's own post, after another's was refused, is no refusal, nor is a renewal of it.
        #expect(try connection.postTransaction(signed, for: "gus").status == 200)
        let renewal = try LinkingAPITests.storeKitTransaction(fixture, original: "6500000003", id: "6500000004")
        #expect(try connection.postTransaction(renewal, for: "gus").status == 200)
        #expect(try get(connection, "gus").1["subscriptions"]?["pro.monthly"] != nil)
        #expect(try get(connection, "hal").1["subscriptions"] == .object([:]))
    }

    /// Under `transferIfNoActive` a one-time purchase moves, unless its owner holds an active
    /// subscription (RevenueCat moves an account's purchases together): the server reads the
    /// owner's subscriptions to decide.
    @Test func transferIfNoActiveKeepsAOneTimePurchaseBesideAnActiveSubscription() throws {
        let fixture = try ServerFixture(demoOptions: #""restoreBehavior": "transferIfNoActive""#)
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        func lifetime(_ id: String) throws -> String {
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            return try fixture.signer.sign(
                .object([
                    "transactionId": .string(id), "originalTransactionId": .string(id),
                    "bundleId": .string("com.example.app"), "productId": .string("forever"),
                    "purchaseDate": .integer(now - 1000), "originalPurchaseDate": .integer(now - 1000),
                    "type": .string("Non-Consumable"), "inAppOwnershipType": .string("PURCHASED"),
                    "environment": .string("Sandbox"), "signedDate": .integer(now - 1000),
                ]))
        }
        #expect(
            try LinkingAPITests.link(connection, "gus", try LinkingAPITests.storeKitTransaction(fixture, original: "6500000021"))
                == 200)
        #expect(try connection.postTransaction(try lifetime("6500000022"), for: "gus").status == 200)
        let refused = try connection.postTransaction(try lifetime("6500000022"), for: "hal")
        #expect(refused.status == 409, "\(String(decoding: refused.body, as: UTF8.self))")
        #expect(try get(connection, "gus").1["non_subscriptions"]?["forever"] != nil)
        #expect(try get(connection, "hal").1["non_subscriptions"] == .object([:]))
        // An owner with no active subscription loses it, as RevenueCat's mode says.
        #expect(try connection.postTransaction(try lifetime("6500000023"), for: "ivy").status == 200)
        #expect(try connection.postTransaction(try lifetime("6500000023"), for: "jim").status == 200)
        #expect(try get(connection, "jim").1["non_subscriptions"]?["forever"] != nil)
    }

    @Test func restoreBehaviorMustBeOneOfRevenueCatsModes() throws {
        let fixture = try ServerFixture(demoOptions: #""restoreBehavior": "share""#)
        let error = #expect(throws: ConfigError.self) { try ConfigLoader.load(path: fixture.configPath) }
        #expect(error?.description.contains("\"transfer\", \"keepWithOriginal\", \"transferIfNoActive\"") == true)
    }
}

/// RevenueCat's sandbox testing access: non-production purchases grant entitlements only to the
/// customers the app allows, and are recorded for everyone.
@Suite("Sandbox access")
struct SandboxAccessTests {
    @Test(arguments: [
        (#""sandboxAccess": "everyone""#, ["tess": true, "uma": true]),
        (#""sandboxAccess": {"appUserIds": ["tess"]}"#, ["tess": true, "uma": false]),
        (#""sandboxAccess": "nobody""#, ["tess": false, "uma": false]),
    ])
    func sandboxPurchasesGrantAsTheAppAllows(option: String, granted: [String: Bool]) throws {
        let fixture = try ServerFixture(demoOptions: option)
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        for (index, user) in ["tess", "uma"].enumerated() {
            let signed = try LinkingAPITests.storeKitTransaction(fixture, original: "670000000\(index)")
            #expect(try LinkingAPITests.link(connection, user, signed) == 200)
            let subscriber = try LinkingAPITests.subscriber(connection, user)
            // Listed either way; an entitlement only where sandbox purchases grant.
            #expect(subscriber["subscriptions"]?["pro.monthly"]?["is_sandbox"] == .bool(true))
            #expect((subscriber["entitlements"]?["pro"] != nil) == granted[user], "\(user)")
        }
        service.shutdown()
        let purchases = try LinkingAPITests.events(fixture).filter { $0.type == "INITIAL_PURCHASE" }
        #expect(purchases.count == 2)
        for event in purchases {
            let expected: JSONValue? = granted[event.customer ?? ""] == true ? .array([.string("pro")]) : nil
            #expect(event.json["entitlement_ids"] == expected, "\(event.customer ?? "")")
        }
    }

    /// The allow-list names customers by their own id: an alias the public key adds (any copy
    /// of the app can) does not let a customer in.
    @Test func anAliasAddedWithThePublicKeyDoesNotOpenTheList() throws {
        let fixture = try ServerFixture(demoOptions: #""sandboxAccess": {"appUserIds": ["tester-1"]}"#)
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let signed = try LinkingAPITests.storeKitTransaction(fixture, original: "6710000000")
        #expect(try LinkingAPITests.link(connection, "bob", signed) == 200)
        let aliased = try connection.request(
            "POST", "/v1/subscribers/bob/alias",
            headers: ["Authorization": "Bearer pk_test_public", "Content-Type": "application/json"],
            body: Data(#"{"new_app_user_id": "tester-1"}"#.utf8))
        #expect(aliased.status == 200, "\(aliased.text)")
        let subscriber = try LinkingAPITests.subscriber(connection, "tester-1")
        #expect(subscriber["original_app_user_id"] == .string("bob"))
        #expect(subscriber["subscriptions"]?["pro.monthly"] != nil)
        #expect(subscriber["entitlements"]?["pro"] == nil, "\(subscriber.serialized())")
    }

    @Test func aSandboxAccessOfAnotherShapeIsOneClearLine() throws {
        let fixture = try ServerFixture(demoOptions: #""sandboxAccess": "some""#)
        let error = #expect(throws: ConfigError.self) { try ConfigLoader.load(path: fixture.configPath) }
        #expect(error?.description.contains(#""some" is not "everyone", "nobody" or {"appUserIds": [...]}"#) == true)
    }
}

/// The app's AppTransaction posted for a customer: its first version and download date.
@Suite("AppTransaction posting")
struct AppTransactionPostingTests {
    @Test func theAppsFirstVersionAndDownloadDateAreTheCustomers() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let downloaded = Int64(1_600_000_000_000)
        let signed = try fixture.signer.sign(
            .object([
                "receiptType": .string("Sandbox"), "appAppleId": .integer(1234), "bundleId": .string("com.example.app"),
                "applicationVersion": .string("7.1"), "originalApplicationVersion": .string("1.0"),
                "originalPurchaseDate": .integer(downloaded),
                "receiptCreationDate": .integer(Int64(Date().timeIntervalSince1970 * 1000) - 1000),
                "signedDate": .integer(Int64(Date().timeIntervalSince1970 * 1000)),
            ]))
        let body = JSONValue.object(["signedAppTransaction": .string(signed)]).serialized()
        let response = try connection.request(
            "POST", "/v1/subscribers/vera/transactions",
            headers: ["Authorization": "Bearer pk_test_public", "Content-Type": "application/json"], body: Data(body.utf8))
        #expect(response.status == 200, "\(response.text)")
        let subscriber = try LinkingAPITests.subscriber(connection, "vera")
        #expect(subscriber["original_application_version"] == .string("1.0"))
        #expect(subscriber["original_purchase_date"] == .string("2020-09-13T12:26:40Z"))
        // A forged one is refused, in RevenueCat's shape.
        let forged = try connection.request(
            "POST", "/v1/subscribers/vera/transactions",
            headers: ["Authorization": "Bearer pk_test_public", "Content-Type": "application/json"],
            body: Data(JSONValue.object(["signedAppTransaction": .string("a.b.c")]).serialized().utf8))
        #expect(forged.status == 401)
        #expect(try JSONValue(parsing: forged.body)["code"] == .integer(7103))
    }
}
