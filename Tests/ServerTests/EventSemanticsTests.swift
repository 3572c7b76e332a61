import AppStore
import Foundation
import JSON
import LoopbackClient
import Testing

@testable import Server
@_spi(StoreSQL) @testable import Storage
@testable import Tools

/// The product's event semantics, end to end: signed notifications in, webhooks out at a real
/// receiver, EXPIRATION from the scheduler when access (grace included) ends.
@Suite("Event semantics end to end")
struct EventSemanticsTests {
    let receiver: WebhookReceiver
    let fixture: ServerFixture
    let service: RevenueDotService
    let connection: LoopbackConnection
    let story: Story

    init() throws {
        receiver = try WebhookReceiver()
        fixture = try WebhookDeliveryTests.fixture(url: receiver.url)
        service = try fixture.startService()
        connection = try LoopbackConnection(port: service.port)
        story = Story(signer: fixture.signer)
    }

    func stop() {
        service.shutdown()
        receiver.stop()
    }

    func post(_ payload: String) throws {
        let response = try connection.request(
            "POST", "/v1/apple/notifications/demo", headers: ["Content-Type": "application/json"],
            body: SignedNotifications.body(payload))
        #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
    }

    /// The events received so far for this story's subscription, once `count` of them arrived.
    @discardableResult
    func events(count: Int) -> [JSONValue] {
        let original = story.originalTransactionId
        let mine = { (received: [WebhookReceiver.Received]) in
            received.map(\.event).filter { $0["original_transaction_id"] == .string(original) }
        }
        return mine(receiver.wait { mine($0).count >= count })
    }

    /// Waits until the wall clock passes `ms`, then fires due timers.
    func fireTimers(after ms: Int64) throws {
        while Story.nowMs <= ms { Thread.sleep(forTimeInterval: 0.02) }
        try service.fireDueTimers()
    }

    /// Gives the workers a moment and returns every event of the story.
    func settled() -> [JSONValue] {
        Thread.sleep(forTimeInterval: 0.4)
        return events(count: 0)
    }

    static func types(_ events: [JSONValue]) -> [String] { events.compactMap { $0["type"]?.stringValue } }

    @Test func downgradeIsScheduledThenTakesEffectAtTheRenewal() throws {
        defer { stop() }
        let now = Story.nowMs
        let yearly = story.period(1, "pro.yearly", from: now, until: now + 86_400_000)
        try post(try story.notification("SUBSCRIBED", "INITIAL_BUY", period: yearly))
        try post(
            try story.notification("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE", period: yearly, autoRenewProductId: "pro.monthly"))
        let change = events(count: 2)
        #expect(Self.types(change) == ["INITIAL_PURCHASE", "PRODUCT_CHANGE"])
        #expect(change.last?["product_id"] == .string("pro.yearly"))
        #expect(change.last?["new_product_id"] == .string("pro.monthly"))

        let monthly = story.period(2, from: yearly.expiresMs, until: yearly.expiresMs + 86_400_000)
        try post(try story.notification("DID_RENEW", period: monthly))
        let renewed = events(count: 3)
        #expect(Self.types(renewed) == ["INITIAL_PURCHASE", "PRODUCT_CHANGE", "RENEWAL"])
        #expect(renewed.last?["product_id"] == .string("pro.monthly"))
    }

    @Test func upgradeSwitchesNowWithProductChangeAndRenewal() throws {
        defer { stop() }
        let now = Story.nowMs
        let monthly = story.period(1, from: now, until: now + 86_400_000)
        try post(try story.notification("SUBSCRIBED", "INITIAL_BUY", period: monthly))
        let yearly = story.period(2, "pro.yearly", from: now + 1000, until: now + 365 * 86_400_000)
        try post(try story.notification("DID_CHANGE_RENEWAL_PREF", "UPGRADE", period: yearly))
        let all = events(count: 3)
        #expect(Self.types(all) == ["INITIAL_PURCHASE", "PRODUCT_CHANGE", "RENEWAL"])
        #expect(all[1]["product_id"] == .string("pro.monthly"))
        #expect(all[1]["new_product_id"] == .string("pro.yearly"))
        #expect(all[2]["product_id"] == .string("pro.yearly"))
    }

    @Test func autoRenewOffThenExpiredVoluntaryGivesOneExpirationWhenAccessEnds() throws {
        defer { stop() }
        let now = Story.nowMs
        let period = story.period(1, from: now, until: now + 3000)
        try post(try story.notification("SUBSCRIBED", "INITIAL_BUY", period: period))
        try post(try story.notification("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", period: period, autoRenewStatus: 0))
        let cancelled = events(count: 2)
        #expect(Self.types(cancelled) == ["INITIAL_PURCHASE", "CANCELLATION"])
        #expect(cancelled.last?["cancel_reason"] == .string("UNSUBSCRIBE"))
        try service.fireDueTimers()
        #expect(Self.types(settled()) == ["INITIAL_PURCHASE", "CANCELLATION"], "no EXPIRATION while access runs")

        try fireTimers(after: period.expiresMs)
        try post(try story.notification("EXPIRED", "VOLUNTARY", period: period, autoRenewStatus: 0))
        try service.fireDueTimers()
        let all = settled()
        #expect(Self.types(all) == ["INITIAL_PURCHASE", "CANCELLATION", "EXPIRATION"])
        #expect(all.last?["expiration_reason"] == .string("UNSUBSCRIBE"))
    }

    @Test func billingIssueInGraceExpiresWhenGraceEndsEvenWithoutApple() throws {
        defer { stop() }
        let now = Story.nowMs
        let period = story.period(1, from: now - 1000, until: now + 500)
        try post(try story.notification("SUBSCRIBED", "INITIAL_BUY", period: period))
        let graceEnd = now + 4000
        let failing: [String: JSONValue] = [
            "gracePeriodExpiresDate": .integer(graceEnd), "isInBillingRetryPeriod": .bool(true),
            "expirationIntent": .integer(2),
        ]
        try post(try story.notification("DID_FAIL_TO_RENEW", "GRACE_PERIOD", period: period, renewal: failing))
        let issue = events(count: 3)
        #expect(Self.types(issue) == ["INITIAL_PURCHASE", "BILLING_ISSUE", "CANCELLATION"])
        #expect(issue.last?["cancel_reason"] == .string("BILLING_ERROR"))
        #expect(issue[1]["grace_period_expiration_at_ms"] == .integer(graceEnd))

        try fireTimers(after: period.expiresMs)
        #expect(Self.types(settled()).count == 3, "no EXPIRATION during the grace period")

        try fireTimers(after: graceEnd)
        let expired = settled()
        #expect(Self.types(expired) == ["INITIAL_PURCHASE", "BILLING_ISSUE", "CANCELLATION", "EXPIRATION"])
        #expect(expired.last?["expiration_reason"] == .string("BILLING_ERROR"))

        try post(try story.notification("EXPIRED", "BILLING_RETRY", period: period, autoRenewStatus: 1, renewal: failing))
        try service.fireDueTimers()
        #expect(Self.types(settled()).count == 4, "no second EXPIRATION for the same lapse")
    }

    @Test func recoveryWithinGraceMeansNoExpirationAtAll() throws {
        defer { stop() }
        let now = Story.nowMs
        let period = story.period(1, from: now - 1000, until: now + 500)
        try post(try story.notification("SUBSCRIBED", "INITIAL_BUY", period: period))
        let graceEnd = now + 4000
        try post(
            try story.notification(
                "DID_FAIL_TO_RENEW", "GRACE_PERIOD", period: period,
                renewal: ["gracePeriodExpiresDate": .integer(graceEnd), "isInBillingRetryPeriod": .bool(true)]))
        events(count: 3)
        let renewed = story.period(2, from: now + 700, until: now + 86_400_000)
        try post(try story.notification("DID_RENEW", "BILLING_RECOVERY", period: renewed))
        try fireTimers(after: graceEnd)
        let all = settled()
        #expect(Self.types(all) == ["INITIAL_PURCHASE", "BILLING_ISSUE", "CANCELLATION", "RENEWAL"])
    }

    @Test func priceIncreaseNotAcceptedExpiresWithThatReason() throws {
        defer { stop() }
        let now = Story.nowMs
        let period = story.period(1, from: now, until: now + 1000)
        try post(try story.notification("SUBSCRIBED", "INITIAL_BUY", period: period))
        try post(
            try story.notification("PRICE_INCREASE", "PENDING", period: period, renewal: ["priceIncreaseStatus": .integer(0)]))
        try fireTimers(after: period.expiresMs)
        try post(
            try story.notification(
                "EXPIRED", "PRICE_INCREASE", period: period, autoRenewStatus: 0,
                renewal: ["priceIncreaseStatus": .integer(0), "expirationIntent": .integer(3)]))
        try service.fireDueTimers()
        let all = settled()
        // The EXPIRED came within the wait for a renewal: cancelled, then expired, as RevenueCat reports it.
        #expect(Self.types(all) == ["INITIAL_PURCHASE", "CANCELLATION", "EXPIRATION"])
        #expect(all.dropLast().last?["cancel_reason"] == .string("PRICE_INCREASE"))
        #expect(all.last?["expiration_reason"] == .string("PRICE_INCREASE"))
    }
}

@Suite("Timers across restarts")
struct TimerRestartTests {
    /// A timer that came due while the server was down fires on the first tick after the start,
    /// and its EXPIRATION is delivered; `/metrics` shows the delivery and an empty backlog.
    @Test func aTimerDueWhileDownFiresAfterTheRestart() throws {
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let fixture = try WebhookDeliveryTests.fixture(url: receiver.url)
        var service = try fixture.startService()
        let story = Story(signer: fixture.signer)
        let now = Story.nowMs
        let period = story.period(1, from: now, until: now + 2000)
        let connection = try LoopbackConnection(port: service.port)
        for payload in [
            try story.notification("SUBSCRIBED", "INITIAL_BUY", period: period),
            try story.notification("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", period: period, autoRenewStatus: 0),
        ] {
            #expect(try connection.postNotification(payload).status == 200)
        }
        receiver.wait { $0.count >= 2 }
        service.shutdown()
        #expect(receiver.received.map(\.type) == ["INITIAL_PURCHASE", "CANCELLATION"])

        while Story.nowMs <= period.expiresMs + 100 { Thread.sleep(forTimeInterval: 0.02) }
        service = try fixture.startService()
        defer { service.shutdown() }
        let received = receiver.wait { $0.count >= 3 }
        #expect(received.map(\.type) == ["INITIAL_PURCHASE", "CANCELLATION", "EXPIRATION"])
        #expect(received.last?.event["expiration_reason"] == .string("UNSUBSCRIBE"))

        Thread.sleep(forTimeInterval: 0.3)
        let metrics = String(decoding: try LoopbackConnection(port: service.port).request("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains(#"revenuedot_webhook_deliveries_total{outcome="delivered"} 1"#))
        #expect(metrics.contains(#"revenuedot_webhook_pending{app="demo",webhook=""} 0"#))
        #expect(metrics.contains("revenuedot_storage_readable 1\n"))
        #expect(metrics.contains(#"revenuedot_webhook_dead{app="demo",webhook=""} 0"#))
        #expect(metrics.contains("revenuedot_webhook_unserved_pending 0\n"))
        #expect(metrics.contains("revenuedot_timers_fired_total 1"))
        #expect(metrics.contains("revenuedot_timers_due 0\n"))
        #expect(metrics.contains("revenuedot_webhook_delivery_latency_seconds_count 1"))
    }
}

@Suite("Scheduler isolation")
struct SchedulerIsolationTests {
    /// A timer that cannot fire is reported and pushed back; the others still fire.
    @Test func aBrokenTimerDoesNotStopTheOthers() throws {
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let fixture = try WebhookDeliveryTests.fixture(url: receiver.url)
        let service = try fixture.startService()
        defer { service.shutdown() }
        let story = Story(signer: fixture.signer)
        let now = Story.nowMs
        let period = story.period(1, from: now, until: now + 300)
        let connection = try LoopbackConnection(port: service.port)
        for payload in [
            try story.notification("SUBSCRIBED", "INITIAL_BUY", period: period),
            try story.notification("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", period: period, autoRenewStatus: 0),
        ] {
            #expect(try connection.postNotification(payload).status == 200)
        }
        let other = try Store(path: fixture.databasePath)
        try other.write { transaction in
            try transaction.execute(
                "INSERT INTO timers (app_id, id, fire_at, json) VALUES ('demo', 'expiration/broken', 0, 'not a timer')")
        }
        other.close()
        while Story.nowMs <= period.expiresMs { Thread.sleep(forTimeInterval: 0.02) }
        try service.fireDueTimers()
        let received = receiver.wait { $0.count >= 3 }
        #expect(received.map(\.type) == ["INITIAL_PURCHASE", "CANCELLATION", "EXPIRATION"])
        Thread.sleep(forTimeInterval: 0.2)
        let check = try Store(path: fixture.databasePath)
        defer { check.close() }
        let broken = try check.read { (rows) throws(StoreError) in
            try rows.query("SELECT fire_at FROM timers WHERE id = 'expiration/broken'", []).first?.first?.integerValue
        }
        #expect((broken ?? 0) > Story.nowMs, "pushed back, not retried on every tick")
        let metrics = String(decoding: try connection.request("GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.contains("revenuedot_timers_failed_total 1") || metrics.contains("revenuedot_timers_failed_total 2"))
    }
}
