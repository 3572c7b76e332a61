import AppStore
import Crypto
import Foundation
import LoopbackClient
import Testing

@testable import Server
@_spi(StoreSQL) @testable import Storage
@testable import Tools

@Suite("revenuedot replay")
struct ReplayTests {
    /// Every derived table, each row as text, in a stable order.
    static func snapshot(_ store: Store) throws -> [String: [String]] {
        try store.read { (rows) throws(StoreError) -> [String: [String]] in
            var tables: [String: [String]] = [:]
            for table in Replay.derivedTables {
                tables[table] = try rows.query("SELECT * FROM \(table) ORDER BY 1, 2").map { "\($0)" }
            }
            return tables
        }
    }

    /// A purchase's life: bought, auto-renew turned off, renewed, failed to renew, expired.
    static let lifecycle: [(type: String, subtype: String?)] = [
        ("SUBSCRIBED", "INITIAL_BUY"), ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED"), ("DID_RENEW", nil),
        ("DID_FAIL_TO_RENEW", "GRACE_PERIOD"), ("EXPIRED", "BILLING_RETRY"),
    ]

    /// Posts `notifications` about the subscription `original`, each answered 200.
    static func post(
        _ notifications: [(type: String, subtype: String?)], about original: String, signer: SignedNotifications,
        over connection: LoopbackConnection
    ) throws {
        for (type, subtype) in notifications {
            let payload = try signer.notification(type: type, subtype: subtype, originalTransactionId: original)
            #expect(try connection.postNotification(payload).status == 200)
        }
    }

    @Test func replayGivesTheLiveStateByteForByte() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        let connection = try LoopbackConnection(port: service.port)
        let signer = fixture.signer
        // A lifecycle of one purchase, other purchases, a TEST, and a posted transaction.
        try Self.post(Self.lifecycle, about: "7000000001", signer: signer, over: connection)
        for _ in 0..<5 { #expect(try connection.postNotification(try signer.notification()).status == 200) }
        #expect(try connection.postNotification(try signer.notification(type: "TEST")).status == 200)
        let posted = try Self.signedYearly("8000000001", original: "8000000001", signer: signer)
        let response = try connection.postTransaction(posted, for: "bob")
        #expect(response.status == 200)
        service.shutdown()

        let store = try Store(path: fixture.databasePath)
        defer { store.close() }
        // Positions consumers have seen are kept, even when they do not start at 1 (events that
        // a replay under changed code no longer makes leave gaps).
        try store.write { transaction in try transaction.execute("UPDATE events SET position = position * 10 + 100") }
        let live = try Self.snapshot(store)
        #expect((live["purchases"]?.count ?? 0) >= 7)
        #expect((live["events"]?.count ?? 0) > 0)
        #expect(live["customers"]?.contains { $0.contains("bob") } == true)
        let applied = try Replay.run(config: try fixture.config(), store: store)
        #expect(applied == 12)
        #expect(try Self.snapshot(store) == live)

        // A replay that makes an event the database lacks (an earlier build did not make it)
        // says what it made otherwise; one that makes every event as before says nothing more.
        let events = try store.read { (rows) throws(StoreError) in
            try rows.query("SELECT count(*) FROM events", []).first?.first?.integerValue ?? 0
        }
        try store.write { transaction in
            _ = try transaction.execute("DELETE FROM events WHERE position = (SELECT max(position) FROM events)")
        }
        store.close()
        let told = try runCLI(["replay", "--config", fixture.configPath])
        #expect(
            told.output == "revenuedot replay: applied 12 input(s) again; events: \(events - 1) as before, 0 changed, "
                + "1 new (never sent), 0 no longer made\n", "\(told.output)")
        let again = try runCLI(["replay", "--config", fixture.configPath])
        #expect(again.output == "revenuedot replay: applied 12 input(s) again\n", "\(again.output)")
    }
}

extension ReplayTests {
    /// Replay under a changed entitlement map: the state follows the new map, but every event
    /// already made keeps the `entitlement_ids` it was sent with.
    @Test func replayUnderNewEntitlementsKeepsWhatEventsWereSentWith() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        let connection = try LoopbackConnection(port: service.port)
        let posted = try Self.signedYearly("7000000002", original: "7000000002", signer: fixture.signer)
        #expect(try connection.postTransaction(posted, for: "bob").status == 200)
        try Self.post(Self.lifecycle, about: "7000000002", signer: fixture.signer, over: connection)
        service.shutdown()

        let store = try Store(path: fixture.databasePath)
        defer { store.close() }
        let before = try Self.snapshot(store)
        #expect(before["events"]?.contains { $0.contains(#"\"entitlement_ids\":[\"pro\"]"#) } == true)
        var config = try fixture.config()
        config.apps[0].entitlements = ["premium": ["pro.monthly", "pro.yearly"]]
        _ = try Replay.run(config: config, store: store)
        let after = try Self.snapshot(store)
        #expect(after["events"] == before["events"])
        // What the customer has now is read under today's map.
        let serving = try RevenueDotService(config: config, log: { _ in })
        try serving.start()
        defer { serving.shutdown() }
        let bob = try LoopbackConnection(port: serving.port).request(
            "GET", "/v1/subscribers/bob", headers: ["Authorization": "Bearer sk_test_secret"])
        #expect(bob.text.contains(#""premium""#) && !bob.text.contains(#""pro":"#), "\(bob.text)")
    }

    /// A StoreKit 2 transaction of `pro.yearly` bought now, for a day, as the app would post it.
    static func signedYearly(_ id: String, original: String, signer: SignedNotifications) throws -> String {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        return try signer.sign(
            .object([
                "transactionId": .string(id), "originalTransactionId": .string(original),
                "bundleId": .string("com.example.app"), "productId": .string("pro.yearly"), "purchaseDate": .integer(now),
                "expiresDate": .integer(now + 86_400_000), "type": .string("Auto-Renewable Subscription"),
                "environment": .string("Sandbox"), "signedDate": .integer(now),
            ]))
    }

    /// A purchase nobody claims keeps its held events as rows; after a posted transaction claims
    /// it (releasing them), replay still gives every derived table byte for byte.
    @Test func replayAfterHeldEventsWereKeptApartAndClaimed() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        let connection = try LoopbackConnection(port: service.port)
        let signer = fixture.signer
        try Self.post(Self.lifecycle, about: "7000000001", signer: signer, over: connection)
        // A second one stays unclaimed: its held events stay rows.
        try Self.post(Array(Self.lifecycle.prefix(3)), about: "7000000002", signer: signer, over: connection)
        let posted = try Self.signedYearly("7000000001-claim", original: "7000000001", signer: signer)
        #expect(try connection.postTransaction(posted, for: "bob", presentedOfferingId: "spring").status == 200)
        service.shutdown()

        let store = try Store(path: fixture.databasePath)
        defer { store.close() }
        let live = try Self.snapshot(store)
        #expect(live["held_events"]?.isEmpty == false)
        #expect(live["held_events"]?.allSatisfy { $0.contains("7000000002") } == true)
        // The events the post released carry the offering it named; replay reads it back.
        let bobs = live["events"]?.filter { $0.contains("bob") } ?? []
        #expect(bobs.count >= 5)
        // (Rows are shown as `SQLValue`s: the JSON's quotes escaped.)
        #expect(bobs.allSatisfy { $0.contains(#"\"presented_offering_id\":\"spring\""#) }, "\(bobs)")
        #expect(try Replay.run(config: try fixture.config(), store: store) == 9)
        #expect(try Self.snapshot(store) == live)
    }
}

extension ReplayTests {
    /// A database holding every kind of applied input (`AppliedInputKind`) replays to the live
    /// state byte for byte: each kind is read back from where its `ref` points and applied again.
    @Test func replayAppliesEveryKindOfInput() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        let connection = try LoopbackConnection(port: service.port)
        let signer = fixture.signer
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        func signed(_ id: String) throws -> String { try Self.signedYearly(id, original: id, signer: signer) }
        try Self.post(Array(Self.lifecycle.prefix(2)), about: "7000000001", signer: signer, over: connection)
        #expect(try connection.postTransaction(try signed("8000000001"), for: "bob").status == 200)
        service.shutdown()

        // Apple's answer, a customer action and the timers due go in as the commands and the
        // scheduler put them.
        let config = try fixture.config()
        let app = try #require(config.apps.first { $0.id == "demo" }).ledger
        let verifier = try #require(try AppVerifiers.forApps(of: config)["demo"]).signatureOnly
        let answered = try signed("8000000002")
        let answer = AppleAnswerRows.Answer(
            signedTransaction: answered, transaction: try verifier.verifyTransaction(answered, now: Date()).payload)
        let store = try Store(path: fixture.databasePath)
        defer { store.close() }
        let later = now + 40 * 86_400_000
        try store.write { transaction in
            try LedgerInputs.keepAndApply(.appleAnswer(answer, appUserId: "carol"), app: app, atMs: now + 1, in: transaction)
            try LedgerInputs.keepAndApply(.customerAction(.seen(appUserId: "dave")), app: app, atMs: now + 2, in: transaction)
            try LedgerInputs.keepAndApply(
                .customerAction(.offeringOverridden(appUserId: "bob", offeringId: "sale")), app: app, atMs: now + 3,
                in: transaction)
            for due in try PendingTimers.due(atMs: later, limit: 100, from: transaction) {
                try LedgerInputs.keepAndApply(.dueTimer(due), app: app, atMs: later, in: transaction)
            }
        }
        let kinds = try store.read { (rows) throws(StoreError) in
            try rows.query("SELECT kind FROM applied_inputs").compactMap { $0[0].textValue }
        }
        #expect(Set(kinds) == Set(AppliedInputKind.allCases.map(\.rawValue)))

        let live = try Self.snapshot(store)
        #expect(try Replay.run(config: config, store: store) == kinds.count)
        #expect(try Self.snapshot(store) == live)
    }
}

@Suite("revenuedot replay with timers and deliveries")
struct ReplayTimerTests {
    /// Timer firings are logged and replayed at the time they fired, so the EXPIRATION they made
    /// comes back with the same id; deliveries are not derived state and survive untouched.
    @Test func replayRepeatsTimerFiringsAndKeepsDeliveries() throws {
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let fixture = try WebhookDeliveryTests.fixture(url: receiver.url)
        let service = try fixture.startService()
        let connection = try LoopbackConnection(port: service.port)
        let story = Story(signer: fixture.signer)
        let now = Story.nowMs
        let period = story.period(1, from: now, until: now + 300)
        for payload in [
            try story.notification("SUBSCRIBED", "INITIAL_BUY", period: period),
            try story.notification("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", period: period, autoRenewStatus: 0),
        ] {
            #expect(try connection.postNotification(payload).status == 200)
        }
        while Story.nowMs <= period.expiresMs { Thread.sleep(forTimeInterval: 0.02) }
        // The scheduler's own tick may have fired it already; either way it fires once.
        try service.fireDueTimers()
        receiver.wait { $0.count >= 3 }
        Thread.sleep(forTimeInterval: 0.3)
        service.shutdown()
        #expect(receiver.received.map(\.type) == ["INITIAL_PURCHASE", "CANCELLATION", "EXPIRATION"])

        let store = try Store(path: fixture.databasePath)
        defer { store.close() }
        let deliveries = { () throws -> [String] in
            try store.read { (rows) throws(StoreError) in
                try rows.query("SELECT * FROM deliveries ORDER BY event_id", []).map { "\($0)" }
            }
        }
        let live = try ReplayTests.snapshot(store)
        let liveDeliveries = try deliveries()
        #expect(liveDeliveries.count == 3)
        #expect(try Replay.run(config: try fixture.config(), store: store) == 3)
        #expect(try ReplayTests.snapshot(store) == live)
        #expect(try deliveries() == liveDeliveries)
    }
}

extension ReplayTests {
    /// One process writes a database at a time: while a server has it, `replay` and a second
    /// `serve` stop with one line naming the database and the holder, and change nothing.
    @Test func replayAndASecondServeAreRefusedWhileAServerRuns() throws {
        let fixture = try ServerFixture()
        let service = try fixture.startService()
        let connection = try LoopbackConnection(port: service.port)
        #expect(try connection.postNotification(try fixture.signer.notification()).status == 200)
        for command in [["replay"], ["serve"]] {
            let refused = try runCLI(command + ["--config", fixture.configPath])
            #expect(refused.status == 1, "\(command)")
            #expect(refused.output.contains("database"), "\(command)")
            #expect(refused.output.contains("is in use by another RevenueDot process (pid \(getpid()))"), "\(command)")
        }
        // Commands that only read go on working beside the server.
        #expect(try runCLI(["notifications", "list", "--config", fixture.configPath]).status == 0)
        #expect(try connection.postNotification(try fixture.signer.notification()).status == 200)
        service.shutdown()
        let replayed = try runCLI(["replay", "--config", fixture.configPath])
        #expect(replayed.status == 0)
        #expect(replayed.output.contains("applied 2 input(s) again"))
    }

    /// The demo app's options with an in-app purchase key, for the commands that ask Apple.
    static func withKey() throws -> String {
        let path = try TestDirectory("replay-key").write("SubscriptionKey_K.p8", try ECPrivateKey(generating: .p256).pkcs8PEM())
        return #""inAppPurchaseKey": {"keyId": "K", "issuerId": "issuer", "privateKeyPath": "\#(path)"}"#
    }

    /// The commands that apply what Apple says to the database (`import` of `csv`).
    static func applyingCommands(csv: String) -> [[String]] {
        [["import", "--app", "demo", csv], ["reconcile", "--app", "demo"], ["backfill", "--app", "demo"]]
    }

    /// A command pointed at a database that does not exist says so, and creates nothing.
    @Test func commandsOnADatabaseThatDoesNotExistFail() throws {
        let fixture = try ServerFixture(demoOptions: try Self.withKey())
        let csv = try TestDirectory("replay-csv").write("subscribers.csv", "original_transaction_id\n1000000001\n")
        let commands = [["notifications", "list"], ["notifications", "rejects"], ["events", "list"], ["replay"]]
        for command in commands + Self.applyingCommands(csv: csv) {
            let missing = try runCLI(command + ["--config", fixture.configPath])
            #expect(missing.status == 1, "\(command)")
            #expect(missing.output.contains("does not exist"), "\(command)")
        }
        #expect(!FileManager.default.fileExists(atPath: fixture.databasePath))
    }
}
