import AppStore
import AppStoreServerAPI
import AppStoreServerAPISimulator
import Foundation
import Testing
import Threads

@testable import Server
@_spi(StoreSQL) @testable import Storage

/// Apple's other "not found" answers of Get All Subscription Statuses: an account Production
/// does not know (AccountNotFoundError) is looked for in Sandbox, as an unknown transaction is;
/// one Apple cannot find for now (AccountNotFoundRetryableError) too, and when no environment
/// has it the row fails, to be imported again later, rather than being "not found".
@Suite("Import when Apple finds no account")
struct ImportAccountNotFoundTests {
    func importing(productionAnswers code: Int64, sandboxKnowsIt: Bool = true) throws -> (
        Import.RowOutcome, production: Int, sandbox: Int
    ) {
        let world = try AppleAPIWorld()
        if sandboxKnowsIt { _ = try world.subscription(original: "6200000001", user: "u", renewals: 1, boughtDaysAgo: 1) }
        let production = try SimulatedAppStore(
            apps: [SimulatedAppStore.App(bundleId: "com.example.app", appAppleId: 1234, environment: .production)],
            chain: world.signer.chain)
        let simulator = AppStoreServerAPISimulator(
            store: production,
            tokens: TokenCheck(keys: [
                try TokenCheck.Key(
                    keyId: AppleAPIWorld.keyId, issuerId: AppleAPIWorld.issuerId,
                    publicKeyPEM: try AppleAPIWorld.key.publicKeyPEM(), bundleIds: ["com.example.app"])
            ]))
        let port = try simulator.start()
        defer { simulator.shutdown() }
        production.inject(.status(404, code: code, retryAfter: nil), count: 100, endpoint: "subscription-statuses")
        var config = try world.config()
        config.appleAPI.baseURLs[.production] = APIBaseURL(host: "127.0.0.1", port: port, usesTLS: false, pathPrefix: "")
        var app = try #require(config.apps.first)
        app.environments = [.production, .sandbox]
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        service.shutdown()
        let store = try Store(path: world.databasePath)
        defer { store.close() }
        let pool = AppleAPIClientPool(
            config: config.appleAPI, retry: RetryPolicy(maxAttempts: 2, baseDelaySeconds: 0.01, maximumDelaySeconds: 0.05))
        let outcome = Import.importRow(
            Import.Row(originalTransactionId: "6200000001", appUserId: nil), app: app, environments: [.production, .sandbox],
            clients: pool, store: store, emitEvents: false, nowMs: UnixTime.nowMs)
        return (outcome, production.requestCount("subscription-statuses"), world.store.requestCount("subscription-statuses"))
    }

    @Test(arguments: [Int64(4_040_010), 4_040_001, 4_040_002])
    func anAccountProductionDoesNotKnowIsLookedForInSandbox(code: Int64) throws {
        let (outcome, production, sandbox) = try importing(productionAnswers: code)
        #expect("\(outcome)" == "imported", "\(outcome)")
        #expect(production >= 1 && sandbox >= 1)
    }

    @Test func anAccountNoEnvironmentFindsForNowIsToBeImportedAgain() throws {
        let (outcome, _, _) = try importing(productionAnswers: 4_040_002, sandboxKnowsIt: false)
        guard case .failed(let reason) = outcome else {
            Issue.record("not failed: \(outcome)")
            return
        }
        #expect(reason.contains("did not find its account for now") && reason.contains("import the row again later"))
        #expect("\(try importing(productionAnswers: 4_040_001, sandboxKnowsIt: false).0)" == "notFound")
    }
}
