import AppStore
import AppStoreServerAPI
import AppStoreServerAPISimulator
import Foundation
import JSON
import LoopbackClient
import Testing

@testable import Tools

/// `simulate apple-api` serves the journal the stories write: an answer holds every line
/// written before its request, however soon after the story it comes.
@Suite("The simulated App Store's journal")
struct AppleAPIJournalTests {
    @Test func aTransactionRecordedJustBeforeARequestIsInItsAnswer() throws {
        let directory = TestDirectory("apple-api-journal")
        let journal = AppleAPIJournal(base: directory.url)
        let store = try SimulatedAppStore(
            apps: [SimulatedAppStore.App(bundleId: "com.example.app", appAppleId: 1234, environment: .sandbox)],
            chain: SignedNotifications.shared.chain)
        let key = AppleAPIWorld.key
        let simulator = AppStoreServerAPISimulator(
            store: store,
            tokens: TokenCheck(keys: [
                try TokenCheck.Key(
                    keyId: AppleAPIWorld.keyId, issuerId: AppleAPIWorld.issuerId, publicKeyPEM: try key.publicKeyPEM(),
                    bundleIds: ["com.example.app"])
            ]), refresh: journal.follower(into: store))
        let port = try simulator.start()
        defer { simulator.shutdown() }
        let token = try APIToken(
            key: key, keyId: AppleAPIWorld.keyId, issuerId: AppleAPIWorld.issuerId, bundleId: "com.example.app")
        let connection = try LoopbackConnection(port: port)
        func transactionInfo(_ id: String) throws -> LoopbackResponse {
            try connection.request(
                "GET", "/inApps/v1/transactions/\(id)", headers: ["Authorization": "Bearer \(try token.make(now: Date()))"])
        }
        #expect(try transactionInfo("8800000001").status == 404)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        for id in ["8800000001", "8800000002"] {
            journal.recordTransaction(
                .object([
                    "transactionId": .string(id), "originalTransactionId": .string(id), "bundleId": .string("com.example.app"),
                    "productId": .string("pro.monthly"), "purchaseDate": .integer(now), "originalPurchaseDate": .integer(now),
                    "expiresDate": .integer(now + 86_400_000), "type": .string("Auto-Renewable Subscription"),
                    "inAppOwnershipType": .string("PURCHASED"), "environment": .string("Sandbox"), "signedDate": .integer(now),
                ]), bundleId: "com.example.app", account: "alice")
            let answer = try transactionInfo(id)
            #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
            #expect(try JSONValue(parsing: answer.body)["signedTransactionInfo"]?.stringValue != nil)
        }
    }
}
