import Foundation
import JSON
import LoopbackClient
@_spi(StoreSQL) import Storage
import Testing

@testable import Server

/// The ids the API is sent: bounded, without control characters, and, with the public key that
/// ships in every copy of the app, never the id of a purchase nobody has claimed.
@Suite("App user ids at the API")
struct AppUserIdRuleTests {
    static func count(_ fixture: ServerFixture, _ table: String) throws -> Int64 {
        let reader = try StoreReader(path: fixture.databasePath)
        return try reader.read { (rows) throws(StoreError) in
            try rows.query("SELECT count(*) FROM \(table)").first?.first?.integerValue ?? -1
        }
    }

    /// Makes the fixture's database one that chose RevenueDot's anonymous ids, as a database
    /// with history does when a build that knows the choice first starts on it.
    static func writeAnonymousIdsRevenueDotsWay(_ fixture: ServerFixture) throws {
        let first = try fixture.startService()
        try first.store.write { transaction in
            try transaction.execute("UPDATE database_settings SET value = 'revenuedot' WHERE name = 'anonymous_ids'")
        }
        first.shutdown()
    }

    static func request(
        _ connection: LoopbackConnection, _ method: String, _ path: String, key: String, body: String? = nil
    ) throws -> LoopbackResponse {
        try connection.request(
            method, path, headers: ["Authorization": "Bearer \(key)", "Content-Type": "application/json"],
            body: body.map { Data($0.utf8) } ?? Data())
    }

    /// In a database that writes anonymous ids RevenueDot's way (one made before the choice),
    /// a purchase tracked with no customer is held by `$RevenueDotAnonymous:<original id>`, an
    /// id anyone who saw the transaction id can spell: the public key can neither read it nor
    /// alias it into another customer; the secret key still can.
    @Test func theAppsKeyCannotReadOrTakeAPurchaseNobodyClaimed() throws {
        let fixture = try ServerFixture(demoOptions: #""trackNewPurchasesFromServerNotifications": true"#)
        try Self.writeAnonymousIdsRevenueDotsWay(fixture)
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let unnamed = try fixture.signer.notification(
            type: "SUBSCRIBED", subtype: "INITIAL_BUY", originalTransactionId: "6400000002")
        #expect(try connection.postNotification(unnamed).status == 200)
        let anonymous = "$RevenueDotAnonymous:6400000002"
        let path = "/v1/subscribers/" + anonymous.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let actions = try Self.count(fixture, "customer_actions")

        let read = try Self.request(connection, "GET", path, key: "pk_test_public")
        #expect(read.status == 403)
        // RevenueCat's code for an id it will not take, which its SDKs know.
        #expect(try JSONValue(parsing: read.body)["code"] == .integer(7256))
        let taken = try Self.request(
            connection, "POST", "/v1/subscribers/mallory/alias", key: "pk_test_public",
            body: #"{"new_app_user_id": "\#(anonymous)"}"#)
        #expect(taken.status == 403)
        #expect(String(decoding: taken.body, as: UTF8.self).contains("only the secret key may use it"))
        let backwards = try Self.request(
            connection, "POST", path + "/alias", key: "pk_test_public", body: #"{"new_app_user_id": "mallory"}"#)
        #expect(backwards.status == 403)
        #expect(try Self.count(fixture, "customer_actions") == actions)

        let held = try Self.request(connection, "GET", path, key: "sk_test_secret")
        #expect(held.status == 200)
        #expect(try JSONValue(parsing: held.body)["subscriber"]?["subscriptions"]?["pro.monthly"] != nil)
    }

    /// Too long, a control character, or empty: refused with one line, nothing stored.
    @Test(arguments: [
        (String(repeating: "é", count: 129), "longer than 256 bytes"),
        ("tab\there", "control character"),
        ("next\u{85}line", "control character"),
        ("", "new_app_user_id"),
    ])
    func aBadIdIsRefusedAndNothingStored(id: String, reason: String) throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let body = String(decoding: JSONValue.object(["new_app_user_id": .string(id)]).serialized().utf8, as: UTF8.self)
        for key in ["pk_test_public", "sk_test_secret"] {
            let alias = try Self.request(connection, "POST", "/v1/subscribers/ann/alias", key: key, body: body)
            #expect(alias.status == 400, "\(alias.status)")
            #expect(String(decoding: alias.body, as: UTF8.self).contains(reason))
        }
        if !id.isEmpty {
            let path = "/v1/subscribers/" + id.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let read = try Self.request(connection, "GET", path, key: "sk_test_secret")
            #expect(read.status == 400, "\(read.status)")
            #expect(try JSONValue(parsing: read.body)["code"] == .integer(7256))
            #expect(String(decoding: read.body, as: UTF8.self).contains(reason))
        }
        #expect(try Self.count(fixture, "customer_actions") == 0)
        #expect(try Self.count(fixture, "customers") == 0)
    }

    /// A line separator or a bidirectional override fakes a line or hides text where an id is
    /// shown, an invisible character or padding makes a look-alike of another id (or of none), a
    /// blank id is no one's, a placeholder ("null") is every install's, and a spelling other than
    /// NFC is another customer's id in Swift's eyes and its own in storage's: both keys are
    /// refused them for a new customer. The secret key still reaches a customer stored under one
    /// before this rule, to read or delete it.
    @Test(arguments: [
        ("ls\u{2028}ps", "control character"), ("evil\u{202E}txt.exe", "control character"), ("   ", "only white space"),
        // RevenueCat's blocked placeholders, in any case, and a "/".
        ("null", "is blocked"), ("Undefined", "is blocked"), ("[object Object]", "is blocked"), ("0", "is blocked"),
        ("team/ann", "holds a slash"), (".", "is a path segment"), ("..", "is a path segment"),
        // "josé" with a combining accent: canonically the same text as the composed one.
        ("jose\u{301}", "normalization form C"), ("\u{958}", "normalization form C"),
        // Invisible characters, alone or inside a look-alike of another id, and padding.
        ("\u{200B}", "invisible character (U+200B)"), ("\u{FEFF}", "invisible character (U+FEFF)"),
        ("\u{3164}", "invisible character (U+3164)"), ("ali\u{200B}ce", "invisible character (U+200B)"),
        ("null\u{A0}", "begins or ends with white space"), (" null", "begins or ends with white space"),
        ("alice ", "begins or ends with white space"), ("ali\u{200D}ce", "invisible character (U+200D)"),
        ("a\u{FE0F}lice", "invisible character (U+FE0F)"), ("ali\u{AD}ce", "invisible character (U+AD)"),
        ("alice\u{E0067}", "invisible character (U+E0067)"),
    ])
    func linesBidiAndBlankIdsAreRefusedToThePublicKey(id: String, reason: String) throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let path = "/v1/subscribers/" + id.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let refused = try Self.request(connection, "GET", path, key: "pk_test_public")
        #expect(refused.status == 400, "\(refused.status)")
        #expect(String(decoding: refused.body, as: UTF8.self).contains(reason))
        #expect(try Self.count(fixture, "customers") == 0)
        let made = try Self.request(connection, "GET", path, key: "sk_test_secret")
        #expect(made.status == 400, "\(made.status)")
        #expect(String(decoding: made.body, as: UTF8.self).contains(reason))
        let posted = try Self.request(connection, "POST", path + "/attributes", key: "sk_test_secret")
        #expect(posted.status == 400, "\(posted.status)")
        #expect(try Self.count(fixture, "customers") == 0)
        service.shutdown()

        // Stored before the rule: the secret key reads it and deletes it.
        let app = try #require(try fixture.config().apps.first { $0.id == "demo" }).ledger
        let store = try Store(path: fixture.databasePath)
        try store.write { transaction in
            try LedgerInputs.keepAndApply(
                .customerAction(.seen(appUserId: id)), app: app, atMs: 1_780_000_000_000, in: transaction)
        }
        store.close()
        let again = try fixture.startService()
        defer { again.shutdown() }
        let old = try LoopbackConnection(port: again.port)
        let legacy = try Self.request(old, "GET", path, key: "sk_test_secret")
        #expect(legacy.status == 200, "\(legacy.status) \(String(decoding: legacy.body, as: UTF8.self))")
        #expect(try Self.request(old, "GET", path, key: "pk_test_public").status == 400)
        #expect(try Self.request(old, "DELETE", path, key: "sk_test_secret").status == 200)
    }

    /// What writing needs of the invisible characters stays allowed where it does something:
    /// emoji sequences, a flag of tags, an ideographic variant, Persian's non-joiner.
    @Test(arguments: [
        "👨\u{200D}👩\u{200D}👧", "❤\u{FE0F}", "1\u{FE0F}\u{20E3}",
        "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}", "\u{845B}\u{E0100}",
        "\u{0645}\u{06CC}\u{200C}\u{062E}\u{0648}\u{0627}\u{0647}\u{0645}", "$RCAnonymousID:0123456789abcdef", "佐藤",
    ])
    func visibleUsesOfInvisibleCharactersAreTaken(id: String) {
        #expect(AppUserIdRule.invisibleScalar(in: id) == nil, "\(id.unicodeScalars.map { String($0.value, radix: 16) })")
        #expect(AppUserIdRule.problem(id, access: .publishable) == nil)
    }

    /// Revoking the grants of a customer nobody knows is a 404 that stores nothing.
    @Test func revokingForAnUnknownCustomerStoresNothing() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let revoked = try Self.request(
            connection, "POST", "/v1/subscribers/nobody/entitlements/pro/revoke_promotionals", key: "sk_test_secret")
        #expect(revoked.status == 404)
        #expect(try Self.count(fixture, "customer_actions") == 0)
        #expect(try Self.request(connection, "GET", "/v1/subscribers/nobody", key: "sk_test_secret").status == 201)
    }
}
