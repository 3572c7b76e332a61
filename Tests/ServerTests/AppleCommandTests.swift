import AppStore
import AppStoreServerAPI
import AppStoreServerAPISimulator
import Foundation
import JSON
import Testing
import Threads

@testable import Server
@testable import Tools

/// `revenuedot apple ENDPOINT`: arguments to calls, and Apple's answers printed decoded.
@Suite("revenuedot apple")
struct AppleCommandTests {
    func command(_ arguments: [String], world: AppleAPIWorld) throws -> (AppleCommand, AppStoreServerAPIClient) {
        let command = try AppleCommand(arguments: arguments + ["--app", "demo", "--config", world.configPath])
        let config = try world.config()
        let client = try AppleAPIClients.client(
            for: try #require(config.app("demo")), environment: .sandbox, config: config.appleAPI)
        return (command, client)
    }

    @Test func historyWithAllPagesIsOneDecodedList() throws {
        let world = try AppleAPIWorld()
        _ = try world.subscription(original: "3000000001", user: "u", renewals: 24, boughtDaysAgo: 25)
        let (command, client) = try command(["transaction-history", "3000000001", "--all"], world: world)
        let answer = try command.answer(client, now: Date())
        #expect(answer["transactions"]?.arrayValue?.count == 25)
        #expect(answer["transactions"]?.arrayValue?.first?["transactionId"] == .string("30000000010"))
        #expect(answer["hasMore"] == .bool(false))
        #expect(world.store.requestCount("transaction-history") == 2)
    }

    /// A failed attempt that is tried again is said on standard error as it happens: five
    /// attempts of up to 30 s each are minutes of silence otherwise.
    @Test func eachAttemptTriedAgainIsSaid() throws {
        let world = try AppleAPIWorld()
        _ = try world.subscription(original: "3000000003", user: "u", renewals: 0, boughtDaysAgo: 1)
        world.store.inject(.status(500, code: 5_000_001, retryAfter: nil), endpoint: "transaction-info")
        let result = try runCLI(["apple", "transaction-info", "30000000030", "--app", "demo", "--config", world.configPath])
        #expect(result.status == 0, "\(result.output)")
        let said = result.output.split(separator: "\n").filter { $0.hasPrefix("revenuedot apple: attempt") }
        #expect(said.count == 1, "\(result.output)")
        #expect(
            said.first?.hasPrefix(
                "revenuedot apple: attempt 1 of 5: transaction-info: Apple answered 500 GeneralInternalRetryableError (5000001)")
                == true,
            "\(result.output)")
        #expect(said.first?.contains("; trying again in 1 s") == true, "\(result.output)")
        #expect(result.output.contains("\"transactionId\": \"30000000030\""), "\(result.output)")
    }

    @Test func statusesAndNotificationsAreDecodedNested() throws {
        let world = try AppleAPIWorld()
        let notifications = try world.subscription(original: "3000000002", user: "u", renewals: 1, boughtDaysAgo: 1)
        for signed in notifications { try world.store.addNotification(signed, bundleId: "com.example.app", delivered: false) }
        let (statuses, client) = try command(["subscription-statuses", "3000000002", "--status", "1"], world: world)
        let answer = try statuses.answer(client, now: Date())
        let item = answer["data"]?.arrayValue?.first?["lastTransactions"]?.arrayValue?.first
        #expect(item?["transactionInfo"]?["transactionId"] == .string("30000000021"))
        #expect(item?["signedTransactionInfo"] == nil)

        let (history, _) = try command(["notification-history", "--start-date", "2020-01-01", "--only-failures"], world: world)
        guard case .notificationHistory(let request, _) = try history.endpoint(now: Date()) else {
            Issue.record("not a notification-history call")
            return
        }
        #expect(request.onlyFailures == true)
        #expect(request.startDate == 1_577_836_800_000)
        // Apple keeps 30 days of Sandbox history: 2020 is refused with Apple's error.
        #expect(throws: AppStoreServerAPIError.self) { _ = try history.answer(client, now: Date()) }
        let (recent, _) = try command(
            ["notification-history", "--start-date", String(UnixTime.nowMs - 86_400_000 * 3)], world: world)
        let listed = try recent.answer(client, now: Date())
        #expect(listed["notificationHistory"]?.arrayValue?.first?["payload"]?["data"]?["transactionInfo"] != nil)
    }

    @Test(arguments: [
        ["transaction-info"], ["transaction-info", "1", "--bogus", "x"], ["bogus-endpoint", "1"],
        ["subscription-statuses", "1", "--status", "9"], ["extend-renewal-date", "1", "--days", "91", "--reason", "1"],
        ["send-consumption", "1", "--delivery-status", "DELIVERED"], ["set-app-account-token", "1", "not-a-uuid"],
        ["notification-history"], ["transaction-history", "1", "--start-date", "tomorrow"],
    ])
    func badArgumentsAreUsageErrors(arguments: [String]) {
        #expect(throws: UsageError.self) { _ = try AppleCommand(arguments: arguments + ["--app", "demo"]) }
    }

    /// Version 1 takes the same options in its own numbers, and the purchase's token.
    @Test func consumptionInVersionOneIsBuiltFromTheSameOptions() throws {
        let command = try AppleCommand(
            arguments: [
                "send-consumption-v1", "42", "--delivery-status", "UNDELIVERED_SERVER_OUTAGE", "--sample-content-provided",
                "false", "--refund-preference", "GRANT_FULL", "--consumption-percentage", "0", "--app-account-token",
                "6B1F4A52-0C4E-4A53-9D27-1C8A3B6B0F11", "--app", "demo",
            ])
        let endpoint = try command.endpoint(now: Date())
        #expect(endpoint.target == "/inApps/v1/transactions/consumption/42")
        let body = try JSONValue(parsing: try endpoint.body() ?? Data())
        #expect(body["deliveryStatus"] == .integer(3))
        #expect(body["refundPreference"] == .integer(1))
        #expect(body["consumptionStatus"] == .integer(1))
        #expect(body["appAccountToken"] == .string("6B1F4A52-0C4E-4A53-9D27-1C8A3B6B0F11"))
    }

    /// Arguments an endpoint would ignore, or values Apple would only refuse after the call
    /// (or, for mass-extend-renewal-date, act on), are refused before any call.
    @Test(arguments: [
        (["request-test-notification", "extra"], "request-test-notification takes no arguments, not also extra"),
        (["transaction-info", "1", "2"], "transaction-info takes 1 argument, not also 2"),
        (["transaction-info", "1", "--status", "1"], "transaction-info does not use --status"),
        (["look-up-order", "X", "--all"], "look-up-order does not use --all"),
        (["transaction-history", "1", "--ownership", "X"], "--ownership must be one of FAMILY_SHARED, PURCHASED"),
        (
            ["transaction-history", "1", "--start-date", "2026-02-01", "--end-date", "2026-01-01"],
            "--start-date is after --end-date"
        ),
        (
            ["notification-history", "--start-date", "2026-01-01", "--transaction-id", "abc"],
            "--transaction-id \"abc\" is not a transaction id (Apple's are decimal numbers)"
        ),
        (["notification-history", "--start-date", "2026-01-01", "--subtype", "SUMMARY"], "--subtype needs --notification-type"),
        (
            ["mass-extend-renewal-date", "--product-id", "p", "--days", "1", "--reason", "1", "--storefront", "XX"],
            "--storefront \"XX\" is not a storefront (three capital letters, such as USA)"
        ),
        (
            [
                "send-consumption", "1", "--delivery-status", "DELIVERED", "--sample-content-provided", "true",
                "--refund-preference", "GRANT_PRORATED", "--consumption-percentage", "100000",
            ],
            "--refund-preference GRANT_PRORATED needs --consumption-percentage between 1 and 99999"
        ),
        (
            [
                "send-consumption-v1", "1", "--delivery-status", "DELIVERED", "--sample-content-provided", "true",
                "--app-account-token", "x",
            ],
            "--app-account-token \"x\" is not a UUID"
        ),
        (
            [
                "send-consumption", "1", "--delivery-status", "DELIVERED", "--sample-content-provided", "true",
                "--app-account-token", "x",
            ],
            "send-consumption does not use --app-account-token"
        ),
    ])
    func argumentsAnEndpointWouldIgnoreAreRefused(arguments: [String], message: String) {
        let error = #expect(throws: UsageError.self) { _ = try AppleCommand(arguments: arguments + ["--app", "demo"]) }
        #expect(error?.description == message)
    }

    @Test func anAppWithoutAKeyIsOneClearLine() throws {
        let fixture = try ServerFixture()
        let config = try fixture.config()
        #expect(throws: AppleAPIClients.Failure.self) {
            _ = try AppleAPIClients.client(for: try #require(config.app("demo")), environment: .sandbox, config: config.appleAPI)
        }
    }
}
