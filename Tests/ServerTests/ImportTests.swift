import AppStore
import AppStoreServerAPISimulator
import Foundation
import JSON
import LoopbackClient
import Testing
import Threads

@testable import Server
@_spi(StoreSQL) @testable import Storage
@testable import Tools

/// `revenuedot import`: existing subscribers from a CSV, applied from what Apple says of each,
/// linked to their customers, interrupted and resumed without doing anything twice.
@Suite("Import of existing subscribers")
struct ImportTests {
    func count(_ world: AppleAPIWorld, _ sql: String) throws -> Int64 {
        try StoreReader(path: world.databasePath).read { (rows) throws(StoreError) in
            try rows.query(sql).first?.first?.integerValue ?? -1
        }
    }

    /// `count` subscriptions in Apple's store, each bought 40 days ago and renewed 10 days ago
    /// (two transactions in its history), each its own customer; the CSV naming them, every
    /// other row with an app_user_id, and one id Apple does not know.
    static func subscriptions(_ world: AppleAPIWorld, count: Int) throws -> String {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let day = AppleAPIWorld.day
        var csv = "original_transaction_id,app_user_id\n"
        for index in 0..<count {
            let id = String(7_000_000_000 + index)
            for (period, bought) in [(0, now - 40 * day), (1, now - 10 * day)] {
                world.store.addTransaction(
                    [
                        "transactionId": .string(period == 0 ? id : String(8_000_000_000 + index)),
                        "originalTransactionId": .string(id), "bundleId": .string("com.example.app"),
                        "productId": .string("pro.monthly"), "purchaseDate": .integer(bought),
                        "originalPurchaseDate": .integer(now - 40 * day), "expiresDate": .integer(bought + 30 * day),
                        "type": .string("Auto-Renewable Subscription"), "inAppOwnershipType": .string("PURCHASED"),
                        "environment": .string("Sandbox"), "transactionReason": .string(period == 0 ? "PURCHASE" : "RENEWAL"),
                    ], bundleId: "com.example.app", account: "account-\(index)")
            }
            world.store.setRenewalInfo(
                [
                    "originalTransactionId": .string(id), "autoRenewStatus": .integer(index % 10 == 0 ? 0 : 1),
                    "autoRenewProductId": .string("pro.monthly"), "environment": .string("Sandbox"),
                ], originalTransactionId: id)
            csv += index % 2 == 0 ? "\(id),user-\(index)\n" : "\"\(id)\",\n"
        }
        return csv + "9999999999,ghost\n"
    }

    /// The issue's test: 1,000 subscriptions, the import process killed in the middle (SIGKILL,
    /// no chance to save anything), then the same command goes on: each imported once, with its
    /// history.
    @Test func aThousandSubscriptionsImportOnceAcrossAKill() throws {
        let world = try AppleAPIWorld()
        let file = try world.directory.write("subscribers.csv", try Self.subscriptions(world, count: 1000))
        // The database exists, as after serve ran once.
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        service.shutdown()

        // A child import held to Apple's Sandbox limits (5 requests a second per endpoint: about 5
        // rows a second), killed once 30 rows are done.
        let slow = try world.directory.write(
            "slow.json",
            try String(contentsOfFile: world.configPath, encoding: .utf8)
                .replacingOccurrences(of: #""requestsPerSecond": 0"#, with: #""requestsPerSecond": null"#))
        _ = chmod(slow, 0o600)
        let child = Process()
        child.executableURL = ChildServer.executable
        child.arguments = ["import", "--config", slow, "--app", "demo", file, "--concurrency", "8"]
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        let checkpoint = Import.checkpointPath(databasePath: world.databasePath, appId: "demo", file: file)
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, child.isRunning {
            let done = (try? String(contentsOfFile: checkpoint, encoding: .utf8)).flatMap {
                Int($0.split(separator: " ").first ?? "")
            }
            if let done, done >= 30 { break }
            usleep(20_000)
        }
        #expect(child.isRunning, "the import finished before it could be killed")
        kill(child.processIdentifier, SIGKILL)
        child.waitUntilExit()
        let halfway = try count(world, "SELECT count(*) FROM purchases")
        #expect((30..<1000).contains(halfway))

        let command = try ImportCommand(arguments: ["--config", world.configPath, "--app", "demo", file, "--concurrency", "8"])
        #expect(try command.run() == 0)
        #expect(try count(world, "SELECT count(*) FROM purchases") == 1000)
        // Each subscription's two past transactions and its status: applied once each.
        #expect(try count(world, "SELECT count(*) FROM apple_answers") == 3000)
        #expect(try count(world, "SELECT count(*) FROM apple_answers WHERE from_history = 1") == 2000)
        // State, not webhooks: each period's event is recorded, none is to be delivered.
        #expect(try count(world, "SELECT count(*) FROM events WHERE type = 'INITIAL_PURCHASE'") == 1000)
        #expect(try count(world, "SELECT count(*) FROM events WHERE type = 'RENEWAL'") == 1000)
        #expect(try count(world, "SELECT count(*) FROM deliveries") == 0)
        // Linked where the row named the customer.
        #expect(try count(world, "SELECT count(*) FROM purchase_views WHERE owner LIKE 'user-%'") == 500)

        // Again: everything is already known.
        #expect(try command.run() == 0)
        #expect(try count(world, "SELECT count(*) FROM apple_answers") == 3000)
    }

    /// The README's order (notification URL first, then backfill, then import): purchases the
    /// import finds stored are linked to the row's customer, from Apple's current answer (kept
    /// for replay), once; a row naming no one, or the owner, leaves them alone.
    @Test func purchasesStoredFirstAreLinkedToTheRowsCustomer() throws {
        let world = try AppleAPIWorld()
        let csv = try Self.subscriptions(world, count: 4)
        let unnamed = try world.directory.write(
            "unnamed.csv",
            "original_transaction_id\n" + (0..<4).map { "\(7_000_000_000 + $0)" }.joined(separator: "\n") + "\n")
        let named = try world.directory.write("named.csv", csv)
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        service.shutdown()
        let first = try runCLI(["import", "--config", world.configPath, "--app", "demo", unnamed])
        #expect(first.output.contains("4 imported, 0 already known, 0 linked to their customer"), "\(first.output)")
        #expect(try count(world, "SELECT count(*) FROM purchase_views WHERE owner LIKE 'user-%'") == 0)
        let answers = try count(world, "SELECT count(*) FROM apple_answers")

        let second = try runCLI(["import", "--config", world.configPath, "--app", "demo", named])
        // Every other row names a customer; the ghost is unknown to Apple.
        #expect(
            second.output.contains("0 imported, 2 already known, 2 linked to their customer, 1 not found"), "\(second.output)")
        #expect(try count(world, "SELECT count(*) FROM purchase_views WHERE owner LIKE 'user-%'") == 2)
        #expect(try count(world, "SELECT count(*) FROM apple_answers") == answers + 2)
        let third = try runCLI(["import", "--config", world.configPath, "--app", "demo", named])
        #expect(third.output.contains("0 imported, 4 already known, 0 linked to their customer"), "\(third.output)")

        // Replay rebuilds the links from the kept answers.
        let owners = try outcome(world)
        #expect(try ReplayCommand(arguments: ["--config", world.configPath]).run() == 0)
        #expect(try outcome(world) == owners)
    }

    /// A purchase another customer owns: with `transfer` (the default) the import moves it and
    /// its TRANSFER goes out as a webhook would (live state, not a fresh import); with
    /// `keepWithOriginal` the row fails, saying who keeps it.
    @Test(arguments: [false, true])
    func aPurchaseOwnedByAnotherIsTransferredOrKeptAsConfigured(keep: Bool) throws {
        // A webhook nobody listens at: its pending deliveries show what would go out.
        let webhook = #""webhook": {"url": "http://127.0.0.1:9/hooks"}"#
        let world = try AppleAPIWorld(demoOptions: keep ? #""restoreBehavior": "keepWithOriginal", "# + webhook : webhook)
        _ = try Self.subscriptions(world, count: 1)
        let first = try world.directory.write("first.csv", "original_transaction_id,app_user_id\n7000000000,alice\n")
        let second = try world.directory.write("second.csv", "original_transaction_id,app_user_id\n7000000000,bob\n")
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        service.shutdown()
        #expect(try runCLI(["import", "--config", world.configPath, "--app", "demo", first]).status == 0)
        let moved = try runCLI(["import", "--config", world.configPath, "--app", "demo", second])
        let owner = try count(world, "SELECT count(*) FROM purchase_views WHERE owner = 'bob'")
        let transfers = try count(
            world, "SELECT count(*) FROM deliveries d JOIN events e ON e.id = d.event_id WHERE e.type = 'TRANSFER'")
        if keep {
            #expect(moved.status == 1, "\(moved.output)")
            #expect(moved.output.contains("0 linked to their customer"), "\(moved.output)")
            #expect(moved.output.contains("kept with alice by the app's restoreBehavior"), "\(moved.output)")
            #expect(owner == 0)
        } else {
            #expect(moved.status == 0, "\(moved.output)")
            #expect(moved.output.contains("1 linked to their customer"), "\(moved.output)")
            #expect(owner == 1)
            #expect(transfers == 1)
            // The first import's own events stay undelivered.
            #expect(try count(world, "SELECT count(*) FROM deliveries") == 1)
        }
    }

    /// Transaction History is asked only for the subscription's group of auto-renewable
    /// transactions: a customer with 45 consumables and a 25-month subscription in another
    /// group costs the import one page (of 20), not four, and only the subscription's own
    /// history is kept.
    @Test func historyIsAskedOnlyForTheSubscriptionsGroup() throws {
        let world = try AppleAPIWorld()
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let day = AppleAPIWorld.day
        func add(_ id: String, original: String, type: String, group: String?, bought: Int64, expires: Int64?) {
            var payload: [String: JSONValue] = [
                "transactionId": .string(id), "originalTransactionId": .string(original),
                "bundleId": .string("com.example.app"), "productId": .string(group.map { "\($0).monthly" } ?? "coins"),
                "purchaseDate": .integer(bought), "originalPurchaseDate": .integer(bought), "type": .string(type),
                "inAppOwnershipType": .string("PURCHASED"), "environment": .string("Sandbox"),
            ]
            if let group { payload["subscriptionGroupIdentifier"] = .string(group) }
            if let expires { payload["expiresDate"] = .integer(expires) }
            world.store.addTransaction(payload, bundleId: "com.example.app", account: "one-customer")
        }
        for index in 0..<45 {
            add(
                "60\(index)", original: "60\(index)", type: "Consumable", group: nil, bought: now - Int64(index) * day,
                expires: nil)
        }
        for month in 0..<25 {
            let bought = now - Int64(25 - month) * 30 * day
            add(
                "72\(month)", original: "720", type: "Auto-Renewable Subscription", group: "other", bought: bought,
                expires: bought + 30 * day)
        }
        for (index, bought) in [now - 40 * day, now - 10 * day].enumerated() {
            add(
                "71\(index)", original: "710", type: "Auto-Renewable Subscription", group: "pro", bought: bought,
                expires: bought + 30 * day)
        }
        world.store.setRenewalInfo(
            [
                "originalTransactionId": .string("710"), "autoRenewStatus": .integer(1),
                "autoRenewProductId": .string("pro.monthly"), "environment": .string("Sandbox"),
            ], originalTransactionId: "710")
        let file = try world.directory.write("one.csv", "original_transaction_id,app_user_id\n710,someone\n")
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        service.shutdown()

        let run = try runCLI(["import", "--config", world.configPath, "--app", "demo", file])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("1 imported"), "\(run.output)")
        #expect(world.store.requestCount("transaction-history") == 1)
        // The first purchase and its renewal from the history, then the current status.
        #expect(try count(world, "SELECT count(*) FROM apple_answers WHERE from_history = 1") == 2)
        #expect(try count(world, "SELECT count(*) FROM apple_answers") == 3)
    }

    /// A row Apple cannot answer for any row now (here a refused key) stops the run there, with
    /// one line saying why and where it resumes, instead of asking Apple for every row.
    @Test func aRefusedKeyStopsTheRunWhereItResumes() throws {
        let world = try AppleAPIWorld()
        let file = try world.directory.write("subscribers.csv", try Self.subscriptions(world, count: 6))
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        service.shutdown()
        world.store.inject(.status(401, code: nil, retryAfter: nil), count: 1)
        let stopped = try runCLI(["import", "--config", world.configPath, "--app", "demo", file, "--concurrency", "1"])
        #expect(stopped.status == 1)
        #expect(stopped.output.contains("0 imported"), "\(stopped.output)")
        #expect(stopped.output.contains("stopped at row 1:"), "\(stopped.output)")
        #expect(stopped.output.contains("check inAppPurchaseKey's keyId"), "\(stopped.output)")
        #expect(world.store.requestCount("subscription-statuses") + world.store.requestCount("transaction-info") <= 1)
        let again = try runCLI(["import", "--config", world.configPath, "--app", "demo", file, "--concurrency", "1"])
        #expect(again.status == 0, "\(again.output)")
        #expect(again.output.contains("6 imported, 0 already known"), "\(again.output)")
    }

    /// The checkpoint is for one file's rows: another file under the same name starts at its
    /// first row; the same rows resume where the last run stopped.
    @Test func aCheckpointResumesOnlyTheFileItWasFor() throws {
        let directory = TestDirectory("import-checkpoint")
        let checkpoint = directory.path("demo.checkpoint")
        let rows = (1...5).map { Import.Row(originalTransactionId: "\($0)", appUserId: nil) }
        let stopAtThree: @Sendable (Import.Row) -> Import.RowOutcome = {
            $0.originalTransactionId == "3" ? .unavailable("3: no answer") : .imported
        }
        let first = Import.run(rows, concurrency: 1, checkpoint: checkpoint, importRow: stopAtThree)
        #expect(first.imported == 2)
        let mode = (try? FileManager.default.attributesOfItem(atPath: checkpoint)[.posixPermissions]) as? Int
        #expect(mode == 0o600)
        #expect(first.stopped?.resumeAt == 3)
        #expect(first.stopped?.reason == "3: no answer")

        // Another export under the same name: its five rows, from the first.
        let other = (11...15).map { Import.Row(originalTransactionId: "\($0)", appUserId: nil) }
        let resumedOther = Locked<Int?>(nil)
        let fresh = Import.run(
            other, concurrency: 2, checkpoint: checkpoint, resumed: { done in resumedOther.withLock { $0 = done } },
            importRow: { _ in .imported })
        #expect(fresh.imported == 5)
        #expect(resumedOther.value == nil)
        #expect(!FileManager.default.fileExists(atPath: checkpoint))

        // In one batch of five, the rows after the stop are not counted: the next run does them.
        let batched = Import.run(rows, concurrency: 5, checkpoint: checkpoint, importRow: stopAtThree)
        #expect(batched.imported == 2)
        #expect(batched.stopped?.resumeAt == 3)
        let resumedSame = Locked<Int?>(nil)
        let rest = Import.run(
            rows, concurrency: 2, checkpoint: checkpoint, resumed: { done in resumedSame.withLock { $0 = done } },
            importRow: { _ in .imported })
        #expect(resumedSame.value == 2)
        #expect(rest.imported == 3)
    }

    /// The config at `world.configPath` with the port `serve` listens on, for a command beside it.
    static func configBeside(_ world: AppleAPIWorld, port: UInt16) throws -> String {
        let path = try world.directory.write(
            "beside.json",
            try String(contentsOfFile: world.configPath, encoding: .utf8)
                .replacingOccurrences(of: #""listen": "127.0.0.1:0""#, with: #""listen": "127.0.0.1:\#(port)""#))
        _ = chmod(path, 0o600)
        return path
    }

    /// What an import left, to compare two imports by. Anonymous owners are named by their form
    /// alone: each database keys their ids with a secret of its own (`AnonymousIds`).
    func outcome(_ world: AppleAPIWorld) throws -> [String] {
        try StoreReader(path: world.databasePath).read { (rows) throws(StoreError) in
            try rows.query(
                """
                SELECT 'view ' || purchase_key || ' '
                    || CASE WHEN owner LIKE '$RCAnonymousID:%' THEN 'anonymous' ELSE coalesce(owner, '-') END
                FROM purchase_views
                UNION ALL SELECT 'events ' || type || ' ' || count(*) FROM events GROUP BY type
                UNION ALL SELECT 'answers ' || from_history || ' ' || count(*) FROM apple_answers GROUP BY from_history
                ORDER BY 1
                """
            ).compactMap { $0.first?.textValue }
        }
    }

    /// With serve running on the database, import goes through it (its rate limit holds for
    /// both) and leaves what it leaves without a server.
    @Test func besideARunningServerTheResultIsTheSame() throws {
        let alone = try AppleAPIWorld()
        let beside = try AppleAPIWorld()
        var results: [[String]] = []
        for world in [alone, beside] {
            let file = try world.directory.write("subscribers.csv", try Self.subscriptions(world, count: 40))
            let service = try RevenueDotService(config: try world.config(), log: { _ in })
            if world === alone {
                service.shutdown()
                #expect(try ImportCommand(arguments: ["--config", world.configPath, "--app", "demo", file]).run() == 0)
            } else {
                try service.start()
                let config = try Self.configBeside(world, port: service.port)
                let run = try runCLI(["import", "--config", config, "--app", "demo", file])
                service.shutdown()
                #expect(run.status == 0, "\(run.output)")
                #expect(run.output.contains("through the running server"))
                #expect(run.output.contains("40 imported, 0 already known, 0 linked to their customer, 1 not found, 0 failed"))
            }
            results.append(try outcome(world))
        }
        #expect(results[0] == results[1])
        #expect(results[0].contains("answers 1 80"))

        // Replay rebuilds the same purchases and events from the stored answers, history included.
        func rows(_ sql: String) throws -> [String] {
            try StoreReader(path: alone.databasePath).read { (rows) throws(StoreError) in
                try rows.query(sql).map { $0.compactMap(\.textValue).joined(separator: " ") }
            }
        }
        let purchases = try rows("SELECT purchase_key, json FROM purchases ORDER BY purchase_key")
        let events = try rows("SELECT id, json FROM events ORDER BY position")
        #expect(try ReplayCommand(arguments: ["--config", alone.configPath]).run() == 0)
        #expect(try rows("SELECT purchase_key, json FROM purchases ORDER BY purchase_key") == purchases)
        #expect(try rows("SELECT id, json FROM events ORDER BY position") == events)
    }

    /// The routes commands use beside serve take the secret key only, and a clear 400 for a bad body.
    @Test func theServerRoutesForCommandsTakeTheSecretKeyAndAClearBody() throws {
        let world = try AppleAPIWorld()
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        try service.start()
        defer { service.shutdown() }
        func post(_ path: String, key: String, _ body: String) throws -> Int {
            try LoopbackConnection(port: service.port).request(
                "POST", path, headers: ["Authorization": "Bearer \(key)", "Content-Type": "application/json"],
                body: Data(body.utf8)
            ).status
        }
        for path in ["/v1/apple/import", "/v1/apple/reconcile"] {
            #expect(try post(path, key: "pk_test_public", #"{"original_transaction_id": "1"}"#) == 401)
            #expect(try post(path, key: "sk_test_secret", #"{"original_transaction_id": "abc"}"#) == 400)
            #expect(
                try post(path, key: "sk_test_secret", #"{"original_transaction_id": "1", "original_transaction_id": "2"}"#) == 400
            )
        }
        #expect(
            try post("/v1/apple/import", key: "sk_test_secret", #"{"original_transaction_id": "1", "environments": ["Xcode"]}"#)
                == 400)
        #expect(try post("/v1/apple/reconcile", key: "sk_test_secret", #"{"original_transaction_id": "1"}"#) == 404)
        #expect(try post("/v1/apple/import", key: "sk_test_secret", #"{"original_transaction_id": "1"}"#) == 200)
    }
}
