import AppStore
import AppStoreServerAPI
import Foundation
import JSON
import Testing

@testable import Server

/// Get Transaction Info for an id of unknown origin: Production first, then Sandbox.
@Suite("Transaction lookups across environments")
struct TransactionLookupEnvironmentsTests {
    /// An app of both environments whose Production cannot be reached (nothing listens there):
    /// a Sandbox purchase is still found; an id known nowhere is a failure to ask Production,
    /// not Apple's "not found" (Production may know it).
    @Test func sandboxIsAskedWhenProductionCannotBe() throws {
        let world = try AppleAPIWorld()
        _ = try world.subscription(original: "6100000001", user: "u", renewals: 0, boughtDaysAgo: 0)
        var config = try world.config()
        var app = try #require(config.apps.first)
        app.environments = [.production, .sandbox]
        config.appleAPI.baseURLs[.production] = APIBaseURL(host: "127.0.0.1", port: 9, usesTLS: false, pathPrefix: "")
        let pool = AppleAPIClientPool(
            config: config.appleAPI, retry: RetryPolicy(maxAttempts: 1, baseDelaySeconds: 0, maximumDelaySeconds: 0),
            timeoutSeconds: 2)
        let signed = try pool.signedTransaction(app: app, transactionId: "61000000010")
        #expect(signed.split(separator: ".").count == 3)
        do {
            _ = try pool.signedTransaction(app: app, transactionId: "61000000099")
            Issue.record("an id known nowhere was found")
        } catch let failure as AppStoreServerAPIError {
            #expect(!failure.isUnknownTransaction, "\(failure)")
        } catch {
            // Not Apple's answer: a failure to ask, as it should be.
        }
    }
}

/// Apple counts an app's calls per endpoint whoever makes them: the server's workers and the
/// API's transaction lookups keep to one set of rates, and a config without
/// `requestsPerSecond` keeps Apple's limits.
@Suite struct SharedAppleRatesTests {
    @Test func poolsGivenOneSetOfRatesShareItPerAppAndEnvironment() throws {
        let world = try AppleAPIWorld()
        var config = try world.config()
        config.appleAPI.requestsPerSecond = nil
        let app = try #require(config.apps.first)
        let rates = AppleAPIRates()
        let workers = AppleAPIClientPool(config: config.appleAPI, rates: rates)
        let lookups = AppleAPIClientPool(config: config.appleAPI, timeoutSeconds: 2, rates: rates)
        let a = try workers.client(for: app, environment: .sandbox)
        let b = try lookups.client(for: app, environment: .sandbox)
        #expect(a !== b)
        #expect(a.rateLimits === b.rateLimits)
        let history = Endpoint.transactionHistory(transactionId: "1", filter: TransactionHistoryRequest(), revision: nil)
        #expect(a.rateLimits.requestsPerSecond(for: history) == 5)
        // A pool of its own (a command run beside the server) has rates of its own.
        let alone = try AppleAPIClientPool(config: config.appleAPI).client(for: app, environment: .sandbox)
        #expect(alone.rateLimits !== a.rateLimits)
    }

    @Test func requestsPerSecondIsOptionalAndCapsEachEndpoint() throws {
        func load(_ json: String) throws -> AppleAPIConfig {
            try AppleAPIConfigLoader.load(
                ConfigReader(file: "test.json", path: "appleApi", value: try JSONValue(parsing: Data(json.utf8))),
                directory: URL(fileURLWithPath: "/"))
        }
        #expect(try load("{}").requestsPerSecond == nil)
        #expect(try load(#"{"requestsPerSecond": 20}"#).requestsPerSecond == 20)
        #expect(try load(#"{"requestsPerSecond": 0}"#).requestsPerSecond == 0)
    }
}
