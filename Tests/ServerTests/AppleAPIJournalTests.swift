import AppStore
import AppStoreServerAPI
import Foundation
import JSON
import LoopbackClient
import Testing

@testable import AppStoreServerAPISimulator
@testable import Server
@testable import Tools

/// What `simulate` stories leave for `simulate apple-api`: the notifications, delivered or not,
/// and the transactions, read back line by line as they are appended.
@Suite("The simulated App Store's journal")
struct AppleAPIJournalTests {
    @Test func storiesAreServedAsApplesHistory() throws {
        let world = try AppleAPIWorld()
        let base = URL(fileURLWithPath: world.directory.path("base"))
        let journal = AppleAPIJournal(base: base)
        let notifications = try world.subscription(original: "4000000001", user: "u", renewals: 2, boughtDaysAgo: 2)
        journal.recordTransaction(
            .object([
                "transactionId": .string("t1"), "originalTransactionId": .string("t1"), "environment": .string("Sandbox"),
            ]), bundleId: "com.example.app", account: "u")
        journal.recordRenewalInfo(
            .object(["originalTransactionId": .string("t1"), "autoRenewStatus": .integer(0)]), bundleId: "com.example.app",
            originalTransactionId: "t1")
        for (index, signed) in notifications.enumerated() {
            journal.recordNotification(signed, bundleId: "com.example.app", delivered: index == 0)
        }
        let store = try SimulatedAppStore(
            apps: [SimulatedAppStore.App(bundleId: "com.example.app", appAppleId: 1234, environment: .sandbox)],
            chain: world.signer.chain)
        var offset = journal.load(into: store, from: 0)
        #expect(offset == (try FileManager.default.attributesOfItem(atPath: journal.file.path)[.size] as? UInt64))
        #expect(store.state.withLock { $0.notifications["com.example.app"]?.map(\.delivered) } == [true, false, false])
        // A line still being written is left for the next read.
        let handle = try #require(FileHandle(forWritingAtPath: journal.file.path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"kind":"notification","bundleId":"com.e"#.utf8))
        try handle.close()
        let partial = journal.load(into: store, from: offset)
        #expect(partial == offset)
        offset = partial
        #expect(store.state.withLock { $0.transactions["com.example.app"]?.count } == 1)
        #expect(store.state.withLock { $0.renewalInfo["t1"]?["autoRenewStatus"] } == .integer(0))
        // Apple's Production API knows nothing of what was sent and sold in Sandbox.
        let production = try SimulatedAppStore(
            apps: [SimulatedAppStore.App(bundleId: "com.example.app", appAppleId: 1234, environment: .production)],
            chain: world.signer.chain)
        _ = journal.load(into: production, from: 0, environment: .production)
        #expect(production.state.withLock { $0.notifications["com.example.app"] ?? [] }.isEmpty)
        #expect(production.state.withLock { $0.transactions["com.example.app"] ?? [] }.isEmpty)
        let sandbox = try SimulatedAppStore(
            apps: [SimulatedAppStore.App(bundleId: "com.example.app", appAppleId: 1234, environment: .sandbox)],
            chain: world.signer.chain)
        _ = journal.load(into: sandbox, from: 0, environment: .sandbox)
        #expect(sandbox.state.withLock { $0.notifications["com.example.app"]?.count } == 3)
        // The file is private: it holds signed purchases.
        let mode = try FileManager.default.attributesOfItem(atPath: journal.file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    /// An answer holds every line written before its request, however soon after the story it
    /// comes (`simulate apple-api` reads the journal before each answer).
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
