import AppStore
import Foundation
import JSON
import LoopbackClient
import Testing

@testable import AppStoreServerAPISimulator
@testable import Server
@testable import Tools

/// A renewal-date extension asked of `simulate apple-api` outlives the step after it and the
/// simulator's restart: the story's next transaction keeps the extended end, and the journal
/// serves the extension again.
@Suite("simulate: renewal-date extensions")
struct SimulatedExtensionTests {
    @Test func theNextStepKeepsTheExtensionAndARestartServesIt() throws {
        let directory = TestDirectory("simulate-extension")
        let ca = try runCLI(["simulate", "ca"], in: directory.path(""))
        let root = ca.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let keyPath = try directory.write("SubscriptionKey.p8", try AppleAPIWorld.key.pkcs8PEM())
        func writeConfig(applePort: UInt16) throws -> String {
            try directory.write(
                "revenuedot.json",
                """
                {"listen": "127.0.0.1:0", "database": "sqlite:revenuedot.sqlite",
                 "apps": [{"id": "demo", "bundleId": "com.example.app", "appAppleId": 1234, "environments": ["Sandbox"],
                           "rootCertificates": ["\(root)"], "trackNewPurchasesFromServerNotifications": true,
                           "secretApiKey": "sk_sim", "entitlements": {"pro": ["pro.monthly"]},
                           "inAppPurchaseKey": {"keyId": "\(AppleAPIWorld.keyId)", "issuerId": "\(AppleAPIWorld.issuerId)",
                                                "privateKeyPath": "\(keyPath)"}}],
                 "appleApi": {"baseURLs": {"Sandbox": "http://127.0.0.1:\(applePort)"}, "backfillIntervalMinutes": 0,
                              "requestsPerSecond": 0}}
                """)
        }
        let configPath = try writeConfig(applePort: 1)
        let service = try RevenueDotService(quietly: try ConfigLoader.load(path: configPath))
        try service.start()
        defer { service.shutdown() }
        var config = try ConfigLoader.load(path: configPath)
        config.listen.port = service.port

        // `simulate apple-api` as it runs, in this process.
        let base = directory.url
        let journal = AppleAPIJournal(base: base)
        let chain = try DevCA.load(from: base.appendingPathComponent(".revenuedot/dev-ca")).chain
        func appleAPI() throws -> (SimulatedAppStore, AppStoreServerAPISimulator) {
            let store = try SimulateCommand.appleAPIStore(
                config: config, apps: config.apps, environment: .sandbox, chain: chain, journal: journal)
            let simulator = AppStoreServerAPISimulator(
                store: store,
                tokens: TokenCheck(keys: [
                    try TokenCheck.Key(
                        keyId: AppleAPIWorld.keyId, issuerId: AppleAPIWorld.issuerId,
                        publicKeyPEM: try AppleAPIWorld.key.publicKeyPEM(), bundleIds: ["com.example.app"])
                ]), refresh: journal.follower(into: store, environment: .sandbox))
            return (store, simulator)
        }
        let (store, simulator) = try appleAPI()
        _ = try writeConfig(applePort: try simulator.start())
        defer { simulator.shutdown() }

        func simulate(_ step: String) throws -> String {
            let result = try runCLI(
                ["simulate", step, "--user", "ivy", "--server", "http://127.0.0.1:\(service.port)", "--config", configPath],
                in: directory.path(""))
            #expect(result.status == 0, "\(result.output)")
            return result.output
        }
        let connection = try LoopbackConnection(port: service.port)
        func expires() throws -> String? {
            let response = try connection.request("GET", "/v1/subscribers/ivy", headers: ["Authorization": "Bearer sk_sim"])
            return try JSONValue(parsing: response.body)["subscriber"]?["subscriptions"]?["pro.monthly"]?["expires_date"]?
                .stringValue
        }
        _ = try simulate("subscribe")
        let story = try JSONValue(
            parsing: Data(contentsOf: base.appendingPathComponent(".revenuedot/simulator/demo/ivy.json")))
        let original = try #require(story["originalTransactionId"]?.stringValue)
        let before = try #require(try expires())

        let extended = try runCLI(
            [
                "apple", "extend-renewal-date", original, "--days", "30", "--reason", "1", "--request-identifier", "ext-1",
                "--app", "demo", "--config", configPath,
            ], in: directory.path(""))
        #expect(extended.status == 0, "\(extended.output)")
        let mass = try runCLI(
            [
                "apple", "mass-extend-renewal-date", "--product-id", "basic.monthly", "--days", "1", "--reason", "1",
                "--request-identifier", "mass-1", "--app", "demo", "--config", configPath,
            ], in: directory.path(""))
        #expect(mass.status == 0, "\(mass.output)")
        let after = try #require(try expires())
        #expect(after > before, "RENEWAL_EXTENDED reached the server: \(before) → \(after)")

        // The next step's transaction ends where the extension put it, not where the story had it.
        let cancelled = try simulate("cancel")
        #expect(cancelled.contains("(the App Store extended"), "\(cancelled)")
        #expect(try expires() == after)

        // A restarted simulator serves the extension and its notification, once.
        let journalled = { (store: SimulatedAppStore) in
            store.state.withLock { state in
                (state.notifications["com.example.app"] ?? []).filter { $0.type == "RENEWAL_EXTENDED" }.count
            }
        }
        let restarted = try SimulatedAppStore(
            apps: [SimulatedAppStore.App(bundleId: "com.example.app", appAppleId: 1234, environment: .sandbox)], chain: chain)
        _ = journal.load(into: restarted, from: 0, environment: .sandbox)
        let afterSeconds = Int64(try #require(ISO8601DateFormatter().date(from: after)).timeIntervalSince1970)
        let served = restarted.expiresDate(originalTransactionId: original, bundleId: "com.example.app")
        #expect(served.map { $0 / 1000 } == afterSeconds)
        #expect(journalled(restarted) == 1)
        // It knows the extensions it made: a repeated request identifier extends nothing more
        // (and counts toward no yearly cap), and a mass extension's status is still there.
        let known = restarted.state.withLock { ($0.extensions[original]?.map(\.requestIdentifier), $0.massExtensions["mass-1"]) }
        #expect(known.0 == ["ext-1"])
        #expect(known.1?.productId == "basic.monthly")
        journal.follower(into: store, environment: .sandbox)()
        #expect(journalled(store) == 1)
        #expect(
            store.state.withLock { $0.transactions["com.example.app"]?.allSatisfy { $0.account == "ivy" } } == true)
    }
}
