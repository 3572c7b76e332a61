import AppStore
import AppStoreServerAPISimulator
import Foundation
import JSON
import LoopbackClient
import Testing
import Threads

@testable import Server
@testable import Tools

/// `POST /v1/subscribers/{id}/transactions` with `{"transactionId": "..."}`: an app that knows
/// only the id links the purchase; RevenueDot fetches it from Apple and verifies it first.
@Suite("Posting a transaction by its id")
struct TransactionIdPostingTests {
    func post(_ body: JSONValue, user: String, port: UInt16, key: String = "pk_test_public") throws -> LoopbackResponse {
        try LoopbackConnection(port: port).request(
            "POST", "/v1/subscribers/\(user)/transactions", headers: ["Authorization": "Bearer \(key)"],
            body: Data(body.serialized().utf8))
    }

    @Test func aTransactionAppleKnowsIsFetchedVerifiedAndLinked() throws {
        let world = try AppleAPIWorld()
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        world.store.addTransaction(
            [
                "transactionId": .string("2000000001"), "originalTransactionId": .string("2000000001"),
                "bundleId": .string("com.example.app"), "productId": .string("pro.monthly"),
                "purchaseDate": .integer(now - 60_000), "originalPurchaseDate": .integer(now - 60_000),
                "expiresDate": .integer(now + 86_400_000), "type": .string("Auto-Renewable Subscription"),
                "inAppOwnershipType": .string("PURCHASED"), "environment": .string("Sandbox"),
                "transactionReason": .string("PURCHASE"),
            ], bundleId: "com.example.app")
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        try service.start()
        defer { service.shutdown() }

        // An id is no secret: the public key, which every copy of the app holds, links by id
        // alone no purchase that nobody owns and no appAccountToken names; the app's backend may.
        let guessed = try post(.object(["transactionId": .string("2000000001")]), user: "alice", port: service.port)
        #expect(guessed.status == 403, "\(guessed.text)")
        #expect(guessed.text.contains("signed_transaction_required"), "\(guessed.text)")
        let linked = try post(
            .object(["transactionId": .string("2000000001")]), user: "alice", port: service.port, key: "sk_test_secret")
        #expect(linked.status == 200, "\(linked.text)")
        let body = try JSONValue(parsing: linked.body)
        #expect(body["subscriber"]?["subscriptions"]?["pro.monthly"]?["store_transaction_id"] == .string("2000000001"))
        #expect(body["subscriber"]?["entitlements"]?["pro"] != nil)
        #expect(world.store.requestCount("transaction-info") == 2)

        let unknown = try post(.object(["transactionId": .string("9999999999")]), user: "alice", port: service.port)
        #expect(unknown.status == 404)
        #expect(unknown.text.contains("transaction_not_found"))
        // Asked once: an id Apple did not know is not asked again for a while.
        let asked = world.store.requestCount("transaction-info")
        #expect(try post(.object(["transactionId": .string("9999999999")]), user: "alice", port: service.port).status == 404)
        #expect(world.store.requestCount("transaction-info") == asked)

        // An id proves nothing about who holds the purchase: it never moves from its owner.
        let taken = try post(.object(["transactionId": .string("2000000001")]), user: "mallory", port: service.port)
        #expect(taken.status == 409)
        #expect(taken.text.contains("owned_by_another_customer"))
        let stillAlice = try LoopbackConnection(port: service.port).request(
            "GET", "/v1/subscribers/alice", headers: ["Authorization": "Bearer sk_test_secret"])
        #expect((try JSONValue(parsing: stillAlice.body))["subscriber"]?["entitlements"]?["pro"] != nil)
        // Asking again for alice is fine, with either key: she owns it.
        #expect(try post(.object(["transactionId": .string("2000000001")]), user: "alice", port: service.port).status == 200)

        world.store.inject(.status(500, code: 5_000_000, retryAfter: nil), count: 10)
        let failing = try post(.object(["transactionId": .string("2000000001")]), user: "alice", port: service.port)
        #expect(failing.status == 502)
        #expect(failing.text.contains("app_store_server_api"))

        // A leading zero names no id of Apple's, and would pass the memory of those Apple does not know.
        for bad in ["", "12a", "1 2", "-1", "0", "02000000001", String(repeating: "9", count: 21)] {
            #expect(try post(.object(["transactionId": .string(bad)]), user: "alice", port: service.port).status == 400)
        }
        #expect(try post(.object(["nothing": .null]), user: "alice", port: service.port).status == 400)
    }

    /// A purchase nobody owns yet but made for another account (its appAccountToken, set by the
    /// app at purchase) is not linked on its id alone.
    @Test func aPurchaseBoughtForAnotherAccountIsNotClaimedByItsId() throws {
        let world = try AppleAPIWorld()
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let dave = "b66f2ac1-0000-4000-8000-000000000001"
        world.store.addTransaction(
            [
                "transactionId": .string("2000000009"), "originalTransactionId": .string("2000000009"),
                "bundleId": .string("com.example.app"), "productId": .string("pro.monthly"),
                "purchaseDate": .integer(now - 60_000), "expiresDate": .integer(now + 86_400_000),
                "type": .string("Auto-Renewable Subscription"), "inAppOwnershipType": .string("PURCHASED"),
                "environment": .string("Sandbox"), "appAccountToken": .string(dave),
            ], bundleId: "com.example.app")
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        try service.start()
        defer { service.shutdown() }
        let bob = try post(.object(["transactionId": .string("2000000009")]), user: "bob", port: service.port)
        #expect(bob.status == 409)
        #expect(bob.text.contains("bought_for_another_account"))
        #expect(
            try post(.object(["transactionId": .string("2000000009")]), user: dave.uppercased(), port: service.port).status == 200
        )
    }

    @Test func lookupsAreBoundedPerApp() {
        let lookups = AppleTransactionLookups(config: AppleAPIConfig(), log: Log(sink: { _ in }))
        let taken = (0..<AppleTransactionLookups.perApp).map { _ in lookups.begin(app: "demo") }
        #expect(taken.allSatisfy { $0 })
        #expect(!lookups.begin(app: "demo"))
        #expect(lookups.begin(app: "other"))
        lookups.end(app: "demo")
        #expect(lookups.begin(app: "demo"))
        lookups.rememberMissing("1", app: "demo")
        #expect(lookups.isKnownMissing("1", app: "demo"))
        #expect(!lookups.isKnownMissing("1", app: "other"))
    }

    /// A restore that finds every slot taken says so, once a minute at most for each app; a
    /// restore's claim on an account is given back when its read fails, and one read stands.
    @Test func restoresSayWhenSkippedAndShareWhatWasRead() {
        let lines = Locked<[String]>([])
        let lookups = AppleTransactionLookups(
            config: AppleAPIConfig(), log: Log(sink: { line in lines.withLock { $0.append(line) } }))
        for app in ["demo", "demo", "other"] { lookups.restoreSkipped(app: app) }
        #expect(lines.value.count(where: { $0.contains("apple.restore_skipped") }) == 2, "\(lines.value)")
        let restored = lookups.restored
        guard case .claimed = restored.claim(app: "demo", environment: .sandbox, originalTransactionId: "1") else {
            Issue.record("a first restore does not claim the account")
            return
        }
        guard case .reading = restored.claim(app: "demo", environment: .sandbox, originalTransactionId: "1") else {
            Issue.record("a second restore meanwhile does not wait for the first")
            return
        }
        restored.release(app: "demo", environment: .sandbox, originalTransactionId: "1")
        guard case .claimed = restored.claim(app: "demo", environment: .sandbox, originalTransactionId: "1") else {
            Issue.record("a released claim is not given again")
            return
        }
        let lifetime = RestoredHistories.Purchase(key: .oneTime(transactionId: "7"), signed: "jws", purchasedMs: 1)
        restored.remember([lifetime], app: "demo", environment: .sandbox, originalTransactionIds: ["1", "2"])
        guard case .known(let purchases) = restored.claim(app: "demo", environment: .sandbox, originalTransactionId: "2"),
            purchases.map(\.signed) == ["jws"]
        else {
            Issue.record("the account's other subscription does not find what was read")
            return
        }
        guard case .claimed = restored.claim(app: "demo", environment: .production, originalTransactionId: "2") else {
            Issue.record("another environment's account shares the reading")
            return
        }
    }

    @Test func anAppWithoutAKeyCannotAskApple() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        defer { service.shutdown() }
        let answer = try post(.object(["transactionId": .string("1")]), user: "alice", port: service.port)
        #expect(answer.status == 409)
        #expect(answer.text.contains("no inAppPurchaseKey"))
    }
}
