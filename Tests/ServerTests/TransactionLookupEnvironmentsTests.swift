import AppStore
import AppStoreServerAPI
import Foundation
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
