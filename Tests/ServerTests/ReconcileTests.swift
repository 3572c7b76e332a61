import AppStore
import AppStoreServerAPISimulator
import Foundation
import JSON
import LoopbackClient
import Subscriptions
import Testing
import Threads

@testable import Server
@_spi(StoreSQL) @testable import Storage
@testable import Tools

/// `revenuedot reconcile`: a renewal RevenueDot never heard of (and that Apple's notification
/// history does not hold either) is learned from Apple's subscription statuses, applied through
/// the subscription logic with its RENEWAL, kept for replay, and not applied twice.
@Suite("Reconciliation with Apple's subscription statuses")
struct ReconcileTests {
    func rows(_ world: AppleAPIWorld, _ sql: String) throws -> [String] {
        try StoreReader(path: world.databasePath).read { (rows) throws(StoreError) in
            try rows.query(sql).map {
                $0.map { $0.textValue ?? $0.integerValue.map(String.init) ?? "null" }.joined(separator: " ")
            }
        }
    }

    /// Posts `notifications` to a server on `world`'s database, and stops it. Its timers tick only
    /// at start and when told, so a lapse is recorded after every post, if `thenFireTimers`.
    func deliver(_ notifications: ArraySlice<String>, to world: AppleAPIWorld, thenFireTimers: Bool = false) throws {
        var config = try world.config()
        config.scheduler.intervalMs = 3_600_000
        let service = try RevenueDotService(config: config, log: { _ in })
        try service.start()
        defer { service.shutdown() }
        #expect(service.waitForSchedulerStart())
        for signed in notifications {
            #expect(try LoopbackConnection(port: service.port).postNotification(signed).status == 200)
        }
        if thenFireTimers { try service.fireDueTimers() }
    }

    @Test func aMissedRenewalIsAppliedWithItsEventAndReplaysTheSame() throws {
        let world = try AppleAPIWorld()
        let notifications = try world.subscription(original: "6000000001", user: "u", renewals: 2, boughtDaysAgo: 2)
        world.store.setRenewalInfo(
            [
                "originalTransactionId": .string("6000000001"), "autoRenewStatus": .integer(1),
                "autoRenewProductId": .string("pro.monthly"), "productId": .string("pro.monthly"),
                "environment": .string("Sandbox"), "signedDate": .integer(UnixTime.nowMs),
            ], originalTransactionId: "6000000001")
        // Only the first two reached RevenueDot; its timers then found the subscription lapsed.
        try deliver(notifications.prefix(2), to: world, thenFireTimers: true)
        #expect(try rows(world, "SELECT type FROM events ORDER BY position") == ["INITIAL_PURCHASE", "RENEWAL", "EXPIRATION"])

        #expect(try ReconcileCommand(arguments: ["--config", world.configPath, "--app", "demo"]).run() == 0)
        #expect(
            try rows(world, "SELECT type FROM events ORDER BY position") == [
                "INITIAL_PURCHASE", "RENEWAL", "EXPIRATION", "RENEWAL",
            ])
        #expect(try rows(world, "SELECT count(*) FROM apple_answers") == ["1"])
        #expect(world.store.requestCount("subscription-statuses") == 1)

        // Again: Apple says what is stored, nothing is applied.
        #expect(try ReconcileCommand(arguments: ["--config", world.configPath, "--app", "demo"]).run() == 0)
        #expect(try rows(world, "SELECT count(*) FROM apple_answers") == ["1"])
        #expect(try rows(world, "SELECT count(*) FROM events") == ["4"])

        // Replay rebuilds the same state from the stored inputs, the answer included.
        let before = try rows(world, "SELECT purchase_key, json FROM purchases ORDER BY purchase_key")
        let events = try rows(world, "SELECT id, json FROM events ORDER BY position")
        #expect(try ReplayCommand(arguments: ["--config", world.configPath]).run() == 0)
        #expect(try rows(world, "SELECT purchase_key, json FROM purchases ORDER BY purchase_key") == before)
        #expect(try rows(world, "SELECT id, json FROM events ORDER BY position") == events)
    }

    /// A subscription Apple does not know (Apple answers TransactionIdNotFoundError) is Apple's
    /// answer, not a failure: said as a note, nothing applied, and the command succeeds.
    @Test func aSubscriptionAppleDoesNotKnowIsANoteNotAFailure() throws {
        let world = try AppleAPIWorld()
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        try service.start()
        // Sold by another App Store, as a Sandbox purchase Apple has since cleared.
        let elsewhere = try AppleAPIWorld()
        // And one of another customer's.
        let other = "0b9a4a52-1d55-4f0e-9f59-1c7e8a3c2d10"
        for signed in try elsewhere.subscription(original: "6000000009", user: "u", renewals: 0, boughtDaysAgo: 0)
            + elsewhere.subscription(original: "6000000010", user: other, renewals: 0, boughtDaysAgo: 0)
        {
            #expect(try LoopbackConnection(port: service.port).postNotification(signed).status == 200)
        }
        // And one that lapsed 70 days ago, told of only now.
        let day: Int64 = 86_400_000
        let lapsed = try world.signer.notification(
            type: "EXPIRED", subtype: "VOLUNTARY", originalTransactionId: "6000000011",
            transactionFields: [
                "purchaseDate": .integer(UnixTime.nowMs - 100 * day), "expiresDate": .integer(UnixTime.nowMs - 70 * day),
            ])
        #expect(try LoopbackConnection(port: service.port).postNotification(lapsed).status == 200)
        service.shutdown()
        let reconciled = try runCLI(
            ["reconcile", "--config", world.configPath, "--app", "demo", "--subscription", "6000000009"])
        #expect(reconciled.status == 0, "\(reconciled.output)")
        #expect(reconciled.output.contains("6000000009: Apple knows no such transaction"), "\(reconciled.output)")
        #expect(
            reconciled.output.contains("1 subscription checked, 0 drifted, 0 applied, 0 failed, 1 unknown to Apple\n"),
            "\(reconciled.output)")
        #expect(world.store.requestCount("subscription-statuses") == 1)
        // A subscription asked for by name that cannot be checked is said so, not "0 checked".
        for (arguments, message) in [
            (["--subscription", "999"], "no subscription 999 in app demo"),
            (["--customer", other, "--subscription", "6000000009"], "subscription 6000000009 is not customer \"\(other)\"'s"),
            (
                ["--subscription", "6000000011"],
                "subscription 6000000011 lapsed more than 60 days ago: reconcile checks those with access now or "
                    + "within the last 60 days"
            ),
        ] {
            let refused = try runCLI(["reconcile", "--config", world.configPath, "--app", "demo"] + arguments)
            #expect(refused.status == 1, "\(refused.output)")
            #expect(refused.output == "revenuedot reconcile: \(message)\n", "\(refused.output)")
        }
        // A customer the app does not know is said so, not "0 subscriptions checked".
        let unknown = try runCLI(["reconcile", "--config", world.configPath, "--app", "demo", "--customer", "nobody"])
        #expect(unknown.status == 1, "\(unknown.output)")
        #expect(unknown.output == "revenuedot reconcile: no customer \"nobody\" in app demo\n", "\(unknown.output)")
        #expect(world.store.requestCount("subscription-statuses") == 1)
    }

    /// serve's scheduled reconciliation does the same, and counts the drifts by field.
    @Test func serveReconcilesOnItsScheduleAndCountsDrifts() throws {
        let world = try AppleAPIWorld(reconcileIntervalMinutes: 60)
        let notifications = try world.subscription(original: "6000000002", user: "u", renewals: 2, boughtDaysAgo: 2)
        var config = try world.config()
        config.scheduler.intervalMs = 3_600_000
        let service = try RevenueDotService(config: config, log: { _ in })
        try service.start()
        #expect(service.waitForSchedulerStart())
        defer { service.shutdown() }
        for signed in notifications.prefix(2) {
            #expect(try LoopbackConnection(port: service.port).postNotification(signed).status == 200)
        }
        try service.fireDueTimers()
        service.reconcileNow()
        #expect(
            try rows(world, "SELECT type FROM events ORDER BY position") == [
                "INITIAL_PURCHASE", "RENEWAL", "EXPIRATION", "RENEWAL",
            ])
        #expect(service.metrics.reconciled.counts["applied"] == 1)
        #expect(service.metrics.reconcileDrifts.counts["transactionId"] == 1)
        #expect(service.metrics.reconcileDrifts.counts["expiresDate"] == 1)
        service.reconcileNow()
        #expect(service.metrics.reconciled.counts["in_line"] == 1)
    }

    /// Two renewals missed: each gets its RENEWAL, from Apple's Transaction History between the
    /// stored transaction and Apple's latest, not one RENEWAL for both; replay gives the same.
    @Test func eachMissedRenewalGetsItsOwnEvent() throws {
        let world = try AppleAPIWorld()
        let notifications = try world.subscription(original: "6000000021", user: "u", renewals: 3, boughtDaysAgo: 3)
        try deliver(notifications.prefix(2), to: world)
        #expect(try ReconcileCommand(arguments: ["--config", world.configPath, "--app", "demo"]).run() == 0)
        let renewals = try rows(
            world, "SELECT json_extract(json, '$.transaction_id') FROM events WHERE type = 'RENEWAL' ORDER BY position")
        #expect(renewals == ["60000000211", "60000000212", "60000000213"], "\(renewals)")
        #expect(world.store.requestCount("transaction-history") == 1)
        let events = try rows(world, "SELECT id, json FROM events ORDER BY position")
        #expect(try ReplayCommand(arguments: ["--config", world.configPath]).run() == 0)
        #expect(try rows(world, "SELECT id, json FROM events ORDER BY position") == events)
    }

    /// Apple reversed a refund and its REFUND_REVERSED never arrived: Apple's answer, without
    /// the `revocationDate` stored, is a drift, and applying it gives access back.
    @Test func aReversedRefundIsADriftAndAccessComesBack() throws {
        let world = try AppleAPIWorld()
        let bought = try world.subscription(original: "6000000031", user: "u", renewals: 0, boughtDaysAgo: 0)
        let purchase = UnixTime.nowMs - 600_000
        let refunded: [String: JSONValue] = [
            "transactionId": .string("60000000310"), "originalTransactionId": .string("6000000031"),
            "bundleId": .string("com.example.app"), "productId": .string("pro.monthly"),
            "purchaseDate": .integer(purchase), "originalPurchaseDate": .integer(purchase),
            "expiresDate": .integer(purchase + AppleAPIWorld.day), "type": .string("Auto-Renewable Subscription"),
            "inAppOwnershipType": .string("PURCHASED"), "environment": .string("Sandbox"),
            "signedDate": .integer(UnixTime.nowMs - 300_000), "revocationDate": .integer(UnixTime.nowMs - 300_000),
            "revocationReason": .integer(0), "revocationType": .string("REFUND_FULL"),
        ]
        let refund = try world.signer.sign(
            .object([
                "notificationType": .string("REFUND"), "notificationUUID": .string(UUID().uuidString.lowercased()),
                "version": .string("2.0"), "signedDate": .integer(UnixTime.nowMs - 300_000),
                "data": .object([
                    "appAppleId": .integer(1234), "bundleId": .string("com.example.app"), "environment": .string("Sandbox"),
                    "signedTransactionInfo": .string(try world.signer.sign(.object(refunded))),
                ]),
            ]))
        try deliver(bought[...] + [refund], to: world)
        let access = "SELECT json_extract(json, '$.refunds.60000000310') IS NOT NULL FROM purchases"
        #expect(try rows(world, access) == ["1"])
        // Apple reverses the refund: its answers now sign the transaction without it.
        var reinstated = refunded
        for key in ["revocationDate", "revocationReason", "revocationType"] { reinstated.removeValue(forKey: key) }
        reinstated["signedDate"] = .integer(UnixTime.nowMs)
        world.store.addTransaction(reinstated, bundleId: "com.example.app", account: "u")
        let run = try runCLI(["reconcile", "--config", world.configPath, "--app", "demo"])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("revocationDate"), "\(run.output)")
        #expect(run.output.contains("applied"), "\(run.output)")
        #expect(try rows(world, access) == ["0"])
    }

    /// Apple's billing retry can recover a subscription up to 60 days after its access ended:
    /// reconciliation looks at it until then, and no longer.
    @Test func aLapsedSubscriptionIsAskedAboutThroughBillingRetry() throws {
        let world = try AppleAPIWorld()
        try deliver(try world.subscription(original: "6000000041", user: "u", renewals: 0, boughtDaysAgo: 0)[...], to: world)
        let app = try #require(try world.config().apps.first { $0.id == "demo" })
        let reader = try StoreReader(path: world.databasePath)
        let ends = try #require(try Reconcile.candidates(app: app, store: reader, nowMs: UnixTime.nowMs).first?.accessEndsAtMs)
        let day = AppleAPIWorld.day
        for (after, asked) in [
            (Int64(0), true), (59 * day, true), (60 * day - 1, true), (60 * day + 1, false), (90 * day, false),
        ] {
            let states = try Reconcile.candidates(app: app, store: reader, nowMs: ends + after)
            #expect(states.map(\.originalTransactionId) == (asked ? ["6000000041"] : []), "\(after / day) days after")
        }
    }

    /// A scheduled pass Apple refuses logs one warning with the first error and how many
    /// failed, and stops at a refusal that every call would meet instead of asking for each.
    @Test func aScheduledPassThatFailsSaysSoOnceAndStops() throws {
        let world = try AppleAPIWorld(reconcileIntervalMinutes: 60)
        let lines = Locked<[String]>([])
        var config = try world.config()
        config.scheduler.intervalMs = 3_600_000
        let service = try RevenueDotService(config: config, log: { line in lines.withLock { $0.append(line) } })
        try service.start()
        defer { service.shutdown() }
        for original in ["6000000011", "6000000012", "6000000013"] {
            for signed in try world.subscription(original: original, user: "u", renewals: 0, boughtDaysAgo: 0) {
                #expect(try LoopbackConnection(port: service.port).postNotification(signed).status == 200)
            }
        }
        let asked = world.store.requestCount("subscription-statuses")
        world.store.inject(.status(401, code: nil, retryAfter: nil), count: 3)
        service.reconcileNow()
        #expect(world.store.requestCount("subscription-statuses") == asked + 1)
        #expect(service.metrics.reconciled.counts["failed"] == 1)
        let warnings = lines.value.filter { $0.contains("reconcile.failed") }
        #expect(warnings.count == 1, "\(lines.value)")
        #expect(warnings.first?.contains("pass stopped") == true, "\(warnings)")
        #expect(warnings.first?.contains("failed=1 checked=1 of=3") == true, "\(warnings)")
        service.shutdown()

        // The command stops alike, saying after how many.
        let before = world.store.requestCount("subscription-statuses")
        world.store.inject(.status(401, code: nil, retryAfter: nil), count: 3)
        let run = try runCLI(["reconcile", "--config", world.configPath, "--app", "demo"])
        #expect(run.status == 1)
        #expect(run.output.contains("stopped after 1 of 3"), "\(run.output)")
        #expect(run.output.contains("1 subscription checked, 0 drifted, 0 applied, 1 failed"), "\(run.output)")
        #expect(world.store.requestCount("subscription-statuses") == before + 1)
        #expect(warnings.first?.contains("Apple answered 401") == true, "\(warnings)")
    }

    /// Auto-renew turned off, seen only through the API: reconcile (run beside serve, so serve
    /// applies it) records the CANCELLATION the lost notification would have given, and that
    /// notification, arriving after all (a backfill), gives no second one.
    @Test func autoRenewOffSeenOnlyByTheAPIIsOneCancellationBesideARunningServer() throws {
        let world = try AppleAPIWorld()
        let notifications = try world.subscription(original: "6000000003", user: "u", renewals: 0, boughtDaysAgo: 0)
        let turnedOff = UnixTime.nowMs - 60_000
        world.store.setRenewalInfo(
            [
                "originalTransactionId": .string("6000000003"), "autoRenewStatus": .integer(0),
                "autoRenewProductId": .string("pro.monthly"), "productId": .string("pro.monthly"),
                "environment": .string("Sandbox"), "signedDate": .integer(UnixTime.nowMs),
            ], originalTransactionId: "6000000003")
        let service = try RevenueDotService(config: try world.config(), log: { _ in })
        try service.start()
        defer { service.shutdown() }
        #expect(try LoopbackConnection(port: service.port).postNotification(notifications[0]).status == 200)

        let config = try ImportTests.configBeside(world, port: service.port)
        let run = try runCLI(["reconcile", "--config", config, "--app", "demo"])
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("through the running server"))
        #expect(run.output.contains("6000000003: autoRenew on → off; applied"))
        #expect(try rows(world, "SELECT type FROM events ORDER BY position") == ["INITIAL_PURCHASE", "CANCELLATION"])
        #expect(try rows(world, "SELECT json ->> '$.cancel_reason' FROM events WHERE type = 'CANCELLATION'") == ["UNSUBSCRIBE"])

        // Apple's notification of the change, signed before the answer, comes in late.
        let bought = try UnverifiedPayload.json(of: notifications[0])
        let transaction = try #require(bought["data"]?["transactionInfo"])
        let late = try world.signer.sign(
            .object([
                "notificationType": .string("DID_CHANGE_RENEWAL_STATUS"), "subtype": .string("AUTO_RENEW_DISABLED"),
                "notificationUUID": .string(UUID().uuidString.lowercased()), "version": .string("2.0"),
                "signedDate": .integer(turnedOff),
                "data": .object([
                    "appAppleId": .integer(1234), "bundleId": .string("com.example.app"), "environment": .string("Sandbox"),
                    "signedTransactionInfo": .string(try world.signer.sign(transaction)),
                    "signedRenewalInfo": .string(
                        try world.signer.sign(
                            .object([
                                "originalTransactionId": .string("6000000003"), "autoRenewStatus": .integer(0),
                                "autoRenewProductId": .string("pro.monthly"), "environment": .string("Sandbox"),
                                "signedDate": .integer(turnedOff),
                            ]))),
                ]),
            ]))
        #expect(try LoopbackConnection(port: service.port).postNotification(late).status == 200)
        #expect(try rows(world, "SELECT type FROM events ORDER BY position") == ["INITIAL_PURCHASE", "CANCELLATION"])
    }

    @Test func driftsNameEachField() throws {
        let state = SubscriptionState(originalTransactionId: "1")
        let transaction = JWSTransactionDecodedPayload(
            transactionId: "2", originalTransactionId: "1", productId: "pro.yearly", expiresDate: 1_800_000_000_000)
        let drifts = Reconcile.drifts(
            state, transaction: transaction, renewalInfo: JWSRenewalInfoDecodedPayload(autoRenewStatus: .off))
        #expect(drifts.map(\.field) == ["transactionId", "productId", "expiresDate", "autoRenew"])
        // In billing retry, with a grace period the store did not learn of.
        let grace = JWSRenewalInfoDecodedPayload(
            autoRenewStatus: .on, isInBillingRetryPeriod: true, gracePeriodExpiresDate: 1_800_000_000_000)
        var retrying = state
        retrying.billingIssue = SubscriptionState.BillingIssue(transactionId: "1", detectedAtMs: 0, isInBillingRetry: true)
        #expect(
            Reconcile.drifts(retrying, transaction: JWSTransactionDecodedPayload(), renewalInfo: grace).map(\.field)
                == ["autoRenew", "gracePeriodExpiresDate"])
        retrying.billingIssue?.gracePeriodExpiresDateMs = 1_800_000_000_000
        retrying.autoRenewEnabled = true
        #expect(Reconcile.drifts(retrying, transaction: JWSTransactionDecodedPayload(), renewalInfo: grace).isEmpty)
    }
}
