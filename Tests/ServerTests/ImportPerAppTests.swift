import Foundation
import Testing

@testable import Server

/// `revenuedot import` of one file for several apps: each app's run keeps its own lists, as it
/// keeps its own checkpoint, and an app that cannot ask Apple is refused before anything is done.
@Suite("Import for several apps")
struct ImportPerAppTests {
    /// The world's configuration with two more apps: "twin", holding the demo app's key, and
    /// "other", with no inAppPurchaseKey.
    static func configWithMoreApps(_ world: AppleAPIWorld) throws -> String {
        let text = try String(contentsOfFile: world.configPath, encoding: .utf8)
        let root = world.directory.path("root.pem")
        let key = world.directory.path("SubscriptionKey.p8")
        let more = """
            "apps": [
                {"id": "twin", "bundleId": "com.example.app", "appAppleId": 1234, "environments": ["Sandbox"],
                 "rootCertificates": ["\(root)"], "secretApiKey": "sk_test_twin_secret",
                 "publicApiKey": "pk_test_twin_public",
                 "inAppPurchaseKey": {"keyId": "\(AppleAPIWorld.keyId)", "issuerId": "\(AppleAPIWorld.issuerId)",
                                      "privateKeyPath": "\(key)"}},
                {"id": "other", "bundleId": "com.example.other", "appAppleId": 5678, "environments": ["Sandbox"],
                 "rootCertificates": ["\(root)"], "secretApiKey": "sk_test_other_secret",
                 "publicApiKey": "pk_test_other_public"},
            """
        let path = try world.directory.write("more-apps.json", text.replacingOccurrences(of: #""apps": ["#, with: more))
        _ = chmod(path, 0o600)
        return path
    }

    /// The names of the files in `directory`.
    static func files(_ directory: String) throws -> Set<String> {
        Set(try FileManager.default.contentsOfDirectory(atPath: directory))
    }

    /// The tester's report: a run for an app without a key stopped at row 1, said to run it
    /// again (which could never succeed), and deleted the not-found list another app's run had
    /// written beside the same file.
    @Test func anAppWithoutAKeyIsRefusedAtOnceAndTouchesNothing() throws {
        let world = try AppleAPIWorld()
        let config = try Self.configWithMoreApps(world)
        let file = try world.directory.write("subscribers.csv", try ImportTests.subscriptions(world, count: 1))
        try RevenueDotService(config: try world.config(), log: { _ in }).shutdown()
        let demo = try runCLI(["import", "--config", config, "--app", "demo", file])
        #expect(demo.status == 0, "\(demo.output)")
        let listed = try String(contentsOfFile: file + ".demo.not-found.csv", encoding: .utf8)
        #expect(listed == "original_transaction_id,app_user_id\n9999999999,ghost\n")
        let before = try Self.files(world.directory.url.path)

        let refused = try runCLI(["import", "--config", config, "--app", "other", file])
        #expect(refused.status == 1, "\(refused.output)")
        #expect(
            refused.output
                == #"revenuedot import: app "other" has no inAppPurchaseKey: the App Store Server API needs one (see README)"#
                + "\n")
        #expect(try Self.files(world.directory.url.path) == before)
        #expect(try String(contentsOfFile: file + ".demo.not-found.csv", encoding: .utf8) == listed)
        // Refused before the CSV is read: a file that is not there is not what it says.
        let missing = try runCLI(["import", "--config", config, "--app", "other", world.directory.path("none.csv")])
        #expect(missing.status == 1 && missing.output.contains("has no inAppPurchaseKey"), "\(missing.output)")
    }

    /// reconcile and backfill refuse such an app the same way, before they open anything.
    @Test func reconcileAndBackfillRefuseAnAppWithoutAKeyAtOnce() throws {
        let world = try AppleAPIWorld()
        let config = try Self.configWithMoreApps(world)
        try RevenueDotService(config: try world.config(), log: { _ in }).shutdown()
        let before = try Self.files(world.directory.url.path)
        for command in ["reconcile", "backfill"] {
            let refused = try runCLI([command, "--config", config, "--app", "other"])
            #expect(refused.status == 1, "\(command): \(refused.output)")
            #expect(
                refused.output
                    == #"revenuedot \#(command): app "other" has no inAppPurchaseKey: the App Store Server API needs one (see README)"#
                    + "\n")
        }
        #expect(try Self.files(world.directory.url.path) == before)
    }

    /// Another app with a key imports the same file: it lists its own rows beside the demo app's,
    /// and a new run of either starts only its own lists again.
    @Test func eachAppsRunKeepsItsOwnLists() throws {
        let world = try AppleAPIWorld()
        let config = try Self.configWithMoreApps(world)
        let file = try world.directory.write("subscribers.csv", try ImportTests.subscriptions(world, count: 1))
        try RevenueDotService(config: try world.config(), log: { _ in }).shutdown()
        #expect(try runCLI(["import", "--config", config, "--app", "demo", file]).status == 0)
        let twin = try runCLI(["import", "--config", config, "--app", "twin", file])
        #expect(twin.status == 0, "\(twin.output)")
        #expect(twin.output.contains("1 imported"), "\(twin.output)")
        #expect(twin.output.contains("the 1 not found are listed in \(file).twin.not-found.csv"), "\(twin.output)")
        let listed = "original_transaction_id,app_user_id\n9999999999,ghost\n"
        for app in ["demo", "twin"] {
            #expect(try String(contentsOfFile: file + ".\(app).not-found.csv", encoding: .utf8) == listed)
        }
        // The demo app's next run of another file under that name lists nothing: its list goes,
        // the twin's stays.
        _ = try world.directory.write("subscribers.csv", "original_transaction_id\n7000000000\n")
        #expect(try runCLI(["import", "--config", config, "--app", "demo", file]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: file + ".demo.not-found.csv"))
        #expect(try String(contentsOfFile: file + ".twin.not-found.csv", encoding: .utf8) == listed)
    }
}
