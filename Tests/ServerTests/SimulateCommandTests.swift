import AppStore
import Foundation
import JSON
import LoopbackClient
import Synchronization
import Testing

@testable import Server
@testable import Tools

/// `revenuedot simulate` against a real server trusting the dev CA it creates.
@Suite("revenuedot simulate")
struct SimulateCommandTests {
    let directory = TestDirectory("simulate")
    let service: RevenueDotService
    let configPath: String
    let connection: LoopbackConnection

    init() throws {
        let ca = try runCLI(["simulate", "ca"], in: directory.path(""))
        #expect(ca.status == 0)
        let root = ca.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(root == directory.path(".revenuedot/dev-ca/root.pem"))
        configPath = try directory.write(
            "revenuedot.json",
            """
            {"listen": "127.0.0.1:0", "database": "sqlite:revenuedot.sqlite",
             "apps": [{"id": "demo", "bundleId": "com.example.app", "appAppleId": 1234, "environments": ["Sandbox"],
                       "rootCertificates": ["\(root)"], "trackNewPurchasesFromServerNotifications": true,
                       "secretApiKey": "sk_sim", "publicApiKey": "pk_sim",
                       "entitlements": {"pro": ["pro.monthly", "pro.yearly"]}}]}
            """)
        service = try RevenueDotService(quietly: try ConfigLoader.load(path: configPath))
        try service.start()
        connection = try LoopbackConnection(port: service.port)
    }

    func simulate(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try Self.simulate(arguments, port: service.port, config: configPath, in: directory.path(""))
    }

    /// `revenuedot simulate` in its own process, from any thread.
    static func simulate(_ arguments: [String], port: UInt16, config: String, in directory: String) throws -> (
        status: Int32, output: String
    ) {
        try runCLI(["simulate"] + arguments + ["--server", "http://127.0.0.1:\(port)", "--config", config], in: directory)
    }

    /// What the simulator keeps of `user`'s subscription.
    func simulated(_ user: String) throws -> JSONValue {
        try JSONValue(parsing: Data(contentsOf: directory.url.appendingPathComponent(".revenuedot/simulator/demo/\(user).json")))
    }

    func events(of user: String) throws -> [JSONValue] {
        let response = try connection.request("GET", "/v1/events?limit=1000", headers: ["Authorization": "Bearer sk_sim"])
        return (try JSONValue(parsing: response.body))["events"]?.arrayValue?.compactMap { $0["event"] }
            .filter { $0["app_user_id"] == .string(user) } ?? []
    }

    /// Periods whose milliseconds overflow 64 bits, or that no App Store sells: a usage error.
    @Test(arguments: ["99999999999999999d", "9223372036854775807s", "3651d", "0d", "-5m", "1.5h", "d"])
    func aPeriodOutOfRangeIsAUsageError(period: String) throws {
        defer { service.shutdown() }
        let result = try simulate(["subscribe", "--user", "eve", "--period", period])
        #expect(result.status == 2)
        #expect(result.output.hasPrefix("revenuedot simulate: --period must look like 30s, 5m, 2h or 30d, and be at most 3650d"))
    }

    @Test func theDevCAIsMadeOnce() throws {
        defer { service.shutdown() }
        let before = try String(contentsOfFile: directory.path(".revenuedot/dev-ca/root.pem"), encoding: .utf8)
        #expect(try runCLI(["simulate", "ca"], in: directory.path("")).status == 0)
        #expect(try String(contentsOfFile: directory.path(".revenuedot/dev-ca/root.pem"), encoding: .utf8) == before)
        let unknown = try simulate(["upgrdae"])
        #expect(unknown.status == 2)
        #expect(unknown.output.contains("upgrade"))
    }

    /// Run from another directory, a story uses the dev CA and state beside its configuration,
    /// as `init` wrote them, and makes nothing where it runs.
    @Test func storiesUseWhatIsBesideTheConfigurationWhereverTheyRun() throws {
        defer { service.shutdown() }
        let elsewhere = TestDirectory("simulate-elsewhere")
        let result = try Self.simulate(
            ["subscribe", "--user", "far"], port: service.port, config: configPath, in: elsewhere.path(""))
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("← 200"), "\(result.output)")
        #expect(!FileManager.default.fileExists(atPath: elsewhere.path(".revenuedot")))
        #expect(FileManager.default.fileExists(atPath: directory.path(".revenuedot/simulator/demo/far.json")))
        let environment = try simulate(["subscribe", "--user", "nu", "--environment", "Prod"])
        #expect(environment.status == 2)
        #expect(environment.output.hasPrefix("revenuedot simulate: --environment must be Sandbox or Production, not \"Prod\""))
    }

    /// Options may come before the story as well as after it.
    @Test func optionsComeBeforeOrAfterTheStory() throws {
        defer { service.shutdown() }
        let before = try runCLI(
            ["simulate", "--config", configPath, "--server", "http://127.0.0.1:\(service.port)", "subscribe", "--user", "olga"],
            in: directory.path(""))
        #expect(before.status == 0, "\(before.output)")
        #expect(try events(of: "olga").contains { $0["type"] == .string("INITIAL_PURCHASE") })
        let two = try simulate(["subscribe", "renew"])
        #expect(two.status == 2)
        #expect(two.output.contains("simulate takes one story"))
    }

    /// An option a story would ignore is refused before anything happens, naming the stories
    /// that use it; the same option is taken by a story that uses it.
    @Test func aStoryRefusesAnOptionItWouldIgnore() throws {
        defer { service.shutdown() }
        #expect(try simulate(["subscribe", "--user", "ivy"]).status == 0)
        let before = try simulated("ivy")
        let cases: [([String], String)] = [
            (
                ["renew", "--product", "pro.yearly"],
                "renew does not use --product; it is for subscribe, upgrade, downgrade, "
                    + "lifecycle or commerce-subscribe"
            ),
            (["cancel", "--accept"], "cancel does not use --accept; it is for price-increase"),
            (["renew", "--no-grace"], "renew does not use --no-grace; it is for billing-failure"),
            (["upgrade", "--family-shared"], "upgrade does not use --family-shared; it is for subscribe or lifecycle"),
            (
                ["expire", "--request", "x.json"],
                "expire does not use --request; it is for commerce-subscribe, "
                    + "commerce-upgrade or commerce-downgrade"
            ),
            (["renew", "--port", "9"], "renew does not use --port; it is for apple-api"),
        ]
        for (arguments, message) in cases {
            let result = try simulate(arguments + ["--user", "ivy"])
            #expect(result.status == 2, "\(arguments)")
            #expect(result.output.hasPrefix("revenuedot simulate: \(message)\n"), "\(arguments)")
        }
        let ca = try runCLI(["simulate", "ca", "--user", "ivy"], in: directory.path(""))
        #expect(ca.status == 2 && ca.output.contains("ca does not use --user"), "\(ca.output)")
        #expect(try simulated("ivy") == before, "a refused story changed nothing")
        #expect(try events(of: "ivy").count == 1)
        let increase = try simulate(["price-increase", "--accept", "--user", "ivy"])
        #expect(increase.status == 0 && increase.output.contains("PRICE_INCREASE / ACCEPTED"), "\(increase.output)")
        let upgrade = try simulate(["upgrade", "--product", "pro.yearly", "--user", "ivy"])
        #expect(upgrade.status == 0 && upgrade.output.contains("pro.yearly"), "\(upgrade.output)")
    }

    /// A story refused for its configuration or its arguments makes no dev CA beside the
    /// configuration; `ca` makes no missing directory.
    @Test func aRefusedStoryMakesNothing() throws {
        defer { service.shutdown() }
        let fresh = TestDirectory("simulate-refused")
        let bad = try fresh.write("bad.json", #"{"listen": 8080}"#)
        chmod(bad, 0o600)
        let good = try fresh.write("revenuedot.json", try String(contentsOfFile: configPath, encoding: .utf8))
        chmod(good, 0o600)
        let missing = fresh.path("missing/revenuedot.json")
        let cases: [([String], String)] = [
            (["subscribe", "--config", bad], "listen"),
            (["subscribe", "--config", good, "--app", "nosuch"], "no app \"nosuch\" is configured"),
            (["subscribe", "--config", good, "--period", "1y"], "--period must look like"),
            (["apple-api", "--config", good], "no app has an inAppPurchaseKey"),
            (["ca", "--config", missing], "there is no directory \(fresh.path("missing"))"),
            (
                ["subscribe", "--config", good, "--environment", "Production", "--server", "http://127.0.0.1:9"],
                "app \"demo\" does not accept Production (its environments: Sandbox): its notifications would be held"
            ),
            (["subscribe", "--config", good, "--user", "null", "--server", "http://127.0.0.1:9"], "--user"),
        ]
        for (arguments, message) in cases {
            let result = try runCLI(["simulate"] + arguments, in: fresh.path(""))
            #expect(result.status != 0 && result.output.contains(message), "\(arguments): \(result.output)")
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: fresh.path("")).sorted() == ["bad.json", "revenuedot.json"])
        }
    }

    /// `subscribe` then `upgrade` continue one subscription, and the customer sees the events.
    @Test func storiesContinueOneSubscription() throws {
        defer { service.shutdown() }
        let subscribed = try simulate(["subscribe", "--user", "alice"])
        #expect(subscribed.status == 0, "\(subscribed.output)")
        #expect(subscribed.output.contains("→ SUBSCRIBED / INITIAL_BUY"))
        #expect(subscribed.output.contains("← 200"))
        #expect(try simulate(["subscribe", "--user", "alice"]).status == 1, "already subscribed")
        #expect(try simulate(["upgrade", "--user", "alice"]).status == 0)
        #expect(try simulate(["cancel", "--user", "alice"]).status == 0)
        #expect(try simulate(["expire", "--user", "alice"]).status == 0)
        try service.fireDueTimers()
        let types = try events(of: "alice").compactMap { $0["type"]?.stringValue }
        #expect(types == ["INITIAL_PURCHASE", "PRODUCT_CHANGE", "RENEWAL", "CANCELLATION", "EXPIRATION"])
        #expect(try events(of: "alice").last?["expiration_reason"] == .string("UNSUBSCRIBE"))
        #expect(try simulate(["renew", "--user", "nobody"]).status == 1, "no subscription to renew")
    }

    /// A subscription in good standing expires because its product left sale (the one EXPIRED
    /// reason left: a CANCELLATION, as RevenueCat reports it), and a resubscription right after
    /// it, before any timer fired, still follows the lapse's EXPIRATION: the app posts the
    /// purchase (PURCHASE), then Apple says RESUBSCRIBE.
    @Test func aResubscriptionRightAfterExpiryFollowsTheExpiration() throws {
        defer { service.shutdown() }
        #expect(try simulate(["subscribe", "--user", "rita"]).status == 0)
        let expired = try simulate(["expire", "--user", "rita"])
        #expect(expired.status == 0 && expired.output.contains("→ EXPIRED / PRODUCT_NOT_FOR_SALE"), "\(expired.output)")
        let again = try simulate(["subscribe", "--user", "rita"])
        #expect(again.status == 0 && again.output.contains("→ SUBSCRIBED / RESUBSCRIBE"), "\(again.output)")
        try service.fireDueTimers()
        let events = try events(of: "rita")
        #expect(
            events.compactMap { $0["type"]?.stringValue } == ["INITIAL_PURCHASE", "CANCELLATION", "EXPIRATION", "RENEWAL"])
        #expect(events.count == 4 && events[1]["cancel_reason"] == .string("UNKNOWN"))
        #expect(events.count == 4 && events[2]["expiration_reason"] == .string("UNKNOWN"))
    }

    /// Every transaction of a subscription carries the date it was first bought (Apple's
    /// `originalPurchaseDate`), so a renewal does not move the customer's `original_purchase_date`.
    @Test func renewalsKeepTheOriginalPurchaseDate() throws {
        defer { service.shutdown() }
        func subscription() throws -> JSONValue? {
            let response = try connection.request("GET", "/v1/subscribers/carol", headers: ["Authorization": "Bearer sk_sim"])
            return try JSONValue(parsing: response.body)["subscriber"]?["subscriptions"]?["pro.monthly"]
        }
        #expect(try simulate(["subscribe", "--user", "carol"]).status == 0)
        let bought = try #require(try subscription()?["original_purchase_date"]?.stringValue)
        #expect(try subscription()?["purchase_date"]?.stringValue == bought)
        let first = try subscription()?["store_transaction_id"]
        #expect(try simulate(["renew", "--user", "carol"]).status == 0)
        let renewed = try #require(try subscription())
        #expect(renewed["original_purchase_date"]?.stringValue == bought)
        #expect(renewed["store_transaction_id"] != first, "the renewal is a period of its own")
    }

    /// The steps after a renewal continue the renewed period: an upgrade replaces it, and a
    /// billing recovery after a failure starts a period that runs a month from then.
    @Test func stepsAfterARenewalFollowIt() throws {
        defer { service.shutdown() }
        func subscriber(_ user: String) throws -> JSONValue? {
            let response = try connection.request("GET", "/v1/subscribers/\(user)", headers: ["Authorization": "Bearer sk_sim"])
            return try JSONValue(parsing: response.body)["subscriber"]
        }
        for step in ["subscribe", "renew", "upgrade"] { #expect(try simulate([step, "--user", "dana"]).status == 0) }
        #expect(try subscriber("dana")?["entitlements"]?["pro"]?["product_identifier"] == .string("pro.yearly"))

        for step in ["subscribe", "renew", "billing-failure", "billing-recovery", "cancel"] {
            #expect(try simulate([step, "--user", "gus"]).status == 0)
        }
        try service.fireDueTimers()
        let expires = try #require(try subscriber("gus")?["entitlements"]?["pro"]?["expires_date"]?.stringValue)
        let date = try #require(ISO8601DateFormatter().date(from: expires))
        #expect(date.timeIntervalSinceNow > 20 * 86_400, "access runs to the recovered period's end: \(expires)")
        #expect(try !events(of: "gus").contains { $0["type"] == .string("EXPIRATION") })
    }

    /// Each step is signed after the one before: a cancel and an uncancel signed at one
    /// millisecond were folded in the order of their UUIDs, which left the subscription cancelled
    /// half of the time.
    @Test func stepsAfterARenewalAreSignedOneAfterTheOther() throws {
        defer { service.shutdown() }
        for step in ["subscribe", "renew", "upgrade", "downgrade", "revert", "cancel", "uncancel"] {
            #expect(try simulate([step, "--user", "hana"]).status == 0, "\(step)")
        }
        let response = try connection.request("GET", "/v1/subscribers/hana", headers: ["Authorization": "Bearer sk_sim"])
        let subscription = try JSONValue(parsing: response.body)["subscriber"]?["subscriptions"]?["pro.yearly"]
        #expect(subscription != nil)
        #expect(subscription?["unsubscribe_detected_at"] == .null)
        let types = try events(of: "hana").compactMap { $0["type"]?.stringValue }
        #expect(types.suffix(2) == ["CANCELLATION", "UNCANCELLATION"], "\(types)")
    }

    /// Apple revokes a family member's shared transaction, never the purchaser's own: the family
    /// member's story starts with `subscribe --family-shared`, and `family-revoke` of a purchase is refused.
    @Test func familyRevokeEndsAFamilyMembersSharedAccess() throws {
        defer { service.shutdown() }
        #expect(try simulate(["subscribe", "--user", "erin"]).status == 0)
        let refused = try simulate(["family-revoke", "--user", "erin"])
        #expect(refused.status == 1)
        #expect(!refused.output.contains("REVOKE"), "nothing is sent for a purchase")
        #expect(try events(of: "erin").compactMap { $0["type"]?.stringValue } == ["INITIAL_PURCHASE"])
        #expect(try events(of: "erin").first?["is_family_share"] == .bool(false))

        #expect(try simulate(["subscribe", "--user", "finn", "--family-shared"]).status == 0)
        #expect(try simulate(["refund", "--user", "finn"]).status == 1, "a family member is never charged")
        let revoked = try simulate(["family-revoke", "--user", "finn"])
        #expect(revoked.status == 0, "\(revoked.output)")
        #expect(revoked.output.contains("→ REVOKE"))
        try service.fireDueTimers()
        let finn = try events(of: "finn")
        #expect(finn.compactMap { $0["type"]?.stringValue } == ["INITIAL_PURCHASE", "EXPIRATION"])
        #expect(finn.first?["is_family_share"] == .bool(true))
        let response = try connection.request("GET", "/v1/subscribers/finn", headers: ["Authorization": "Bearer sk_sim"])
        let pro = try JSONValue(parsing: response.body)["subscriber"]?["entitlements"]?["pro"]
        let expires = try #require(pro?["expires_date"]?.stringValue)
        #expect(try #require(ISO8601DateFormatter().date(from: expires)) <= Date(), "access ended at the revocation: \(expires)")

        // What finn buys now is his own: a new subscription, not the shared one resumed.
        let shared = try #require(try simulated("finn")["originalTransactionId"]?.stringValue)
        let bought = try simulate(["subscribe", "--user", "finn"])
        #expect(bought.status == 0 && bought.output.contains("→ SUBSCRIBED / INITIAL_BUY"), "\(bought.output)")
        #expect(try simulated("finn")["originalTransactionId"]?.stringValue != shared)
        #expect(try simulated("finn")["familyShared"] == .bool(false))
        let own = try events(of: "finn").last
        #expect(
            own?["type"] == .string("INITIAL_PURCHASE") && own?["is_family_share"] == .bool(false), "\(String(describing: own))")
        // Likewise erin, once her own purchase expired, can take a family member's shared access.
        #expect(try simulate(["expire", "--user", "erin"]).status == 0)
        let joined = try simulate(["subscribe", "--user", "erin", "--family-shared"])
        #expect(joined.status == 0 && joined.output.contains("→ SUBSCRIBED / INITIAL_BUY"), "\(joined.output)")
        #expect(try simulated("erin")["familyShared"] == .bool(true))
    }

    /// Stories played at once by separate processes never share a transaction id: one id in two
    /// customers' subscriptions made RevenueDot move a purchase between them (TRANSFER).
    @Test func parallelProcessesNeverShareATransactionId() throws {
        defer { service.shutdown() }
        let (port, config, base) = (service.port, configPath, directory.path(""))
        let failures = Mutex<[String]>([])
        runOnThreads(4) { loop in
            for index in 0..<6 {
                for step in ["subscribe", "renew"] {
                    let user = "loop\(loop)-\(index)"
                    let result = try? Self.simulate([step, "--user", user], port: port, config: config, in: base)
                    if result?.status != 0 { failures.withLock { $0.append("\(user) \(step): \(result?.output ?? "")") } }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        var ids: [String] = []
        for loop in 0..<4 {
            for index in 0..<6 {
                let user = "loop\(loop)-\(index)"
                let state = try simulated(user)
                ids += [state["originalTransactionId"]?.stringValue ?? "", state["transactionId"]?.stringValue ?? ""]
                #expect(
                    try events(of: user).compactMap { $0["type"]?.stringValue } == ["INITIAL_PURCHASE", "RENEWAL"], "\(user)")
            }
        }
        #expect(Set(ids).count == 48, "\(ids.sorted())")
        let response = try connection.request("GET", "/v1/events?limit=1000", headers: ["Authorization": "Bearer sk_sim"])
        let types = (try JSONValue(parsing: response.body))["events"]?.arrayValue?.compactMap {
            $0["event"]?["type"]?.stringValue
        }
        #expect(types?.contains("TRANSFER") == false)
    }

    /// An app without an In-App Purchase key cannot have requests signed: the story says so and
    /// the App Store charges nothing.
    @Test func commerceNeedsAnInAppPurchaseKey() throws {
        defer { service.shutdown() }
        let played = try simulate(["commerce-subscribe", "--user", "ivy"])
        #expect(played.status == 1)
        #expect(played.output.contains("no_in_app_purchase_key"), "\(played.output)")
        #expect(try events(of: "ivy").isEmpty)
    }

    /// A whole story in seconds (3 s periods leave room on a loaded machine): trial, conversion, plan changes, cancellation, expiry.
    @Test func lifecyclePlaysOutWithAShortPeriod() throws {
        defer { service.shutdown() }
        let played = try simulate(["lifecycle", "--user", "bob", "--period", "3s"])
        #expect(played.status == 0, "\(played.output)")
        try service.fireDueTimers()
        let bob = try events(of: "bob")
        let types = bob.compactMap { $0["type"]?.stringValue }
        #expect(types.first == "INITIAL_PURCHASE")
        #expect(bob.first?["period_type"] == .string("TRIAL"))
        #expect(bob.contains { $0["type"] == .string("RENEWAL") && $0["is_trial_conversion"] == .bool(true) })
        #expect(types.contains("PRODUCT_CHANGE"))
        #expect(types.contains("CANCELLATION"))
        #expect(types.last == "EXPIRATION")
        // One EXPIRATION per lapse. On time, the story has one lapse, at its end. On a machine too
        // busy to send the renewal before the trial ended (the story runs on the wall clock, and
        // the server's scheduler ticks every second), access did lapse in between and came back
        // with the renewal: that lapse has an EXPIRATION of its own, before the RENEWAL.
        var accessSinceExpiration = false
        for type in types {
            if type == "EXPIRATION" {
                #expect(accessSinceExpiration, "an EXPIRATION with no access given since the last: \(types)")
                accessSinceExpiration = false
            } else if ["INITIAL_PURCHASE", "RENEWAL", "PRODUCT_CHANGE"].contains(type) {
                accessSinceExpiration = true
            }
        }
        let ids = bob.compactMap { $0["id"]?.stringValue }
        #expect(ids.count == bob.count && Set(ids).count == ids.count, "every event once: \(ids)")
    }

    /// `--product` is the plan a lifecycle starts on: from the top plan there is no upgrade, and
    /// the downgrade taken back goes to the plan below (it used to stop: "on pro.yearly already").
    @Test func lifecycleStartsOnTheProductAsked() throws {
        defer { service.shutdown() }
        let played = try simulate(["lifecycle", "--user", "yan", "--product", "pro.yearly", "--period", "3s"])
        #expect(played.status == 0, "\(played.output)")
        #expect(played.output.contains("pro.yearly is the top plan: no upgrade"), "\(played.output)")
        #expect(played.output.contains("DOWNGRADE  pro.yearly"), "\(played.output)")
        #expect(played.output.contains("auto-renew on → pro.monthly"), "\(played.output)")
        try service.fireDueTimers()
        let types = try events(of: "yan").compactMap { $0["type"]?.stringValue }
        #expect(types.first == "INITIAL_PURCHASE")
        #expect(types.contains("CANCELLATION"))
        #expect(types.last == "EXPIRATION")
        #expect(try events(of: "yan").allSatisfy { $0["product_id"] == .string("pro.yearly") })
    }
}
