import AppStore
import Foundation
import JSON
import LoopbackClient
import Testing

@testable import Server
@testable import Tools

/// What a team moving from RevenueCat relies on, through the real server: a dollar price from
/// the operator's rates with tax and commission, an entitlement that lasts through grace, and
/// every product of a plan change under `subscriptions`.
@Suite("RevenueCat drop-in end to end")
struct DropInEndToEndTests {
    @Test func pricesGraceAndPlanChangesAsRevenueCatShowsThem() throws {
        let fixture = try ServerFixture()
        let rates = try fixture.directory.write("rates.json", #"{"base": "USD", "rates": {"EUR": 0.9}}"#)
        let text = try String(contentsOfFile: fixture.configPath, encoding: .utf8)
        try text.replacingOccurrences(of: "{\n  \"listen\"", with: "{\n  \"exchangeRatesFile\": \"\(rates)\",\n  \"listen\"")
            .write(toFile: fixture.configPath, atomically: true, encoding: .utf8)
        _ = chmod(fixture.configPath, 0o600)
        let service = try fixture.startService()
        let connection = try LoopbackConnection(port: service.port)

        // Bought in Germany, in euros.
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var transaction: [String: JSONValue] = [
            "transactionId": .string("6900000001"), "originalTransactionId": .string("6900000001"),
            "bundleId": .string("com.example.app"), "productId": .string("pro.monthly"),
        ]
        transaction["purchaseDate"] = .integer(now - 1000)
        transaction["originalPurchaseDate"] = .integer(now - 1000)
        transaction["expiresDate"] = .integer(now + 30 * 86_400_000)
        transaction["signedDate"] = .integer(now - 1000)
        transaction["type"] = .string("Auto-Renewable Subscription")
        transaction["inAppOwnershipType"] = .string("PURCHASED")
        transaction["environment"] = .string("Sandbox")
        transaction["price"] = .integer(9990)
        transaction["currency"] = .string("EUR")
        transaction["storefront"] = .string("DEU")
        let euros = try fixture.signer.sign(.object(transaction))
        #expect(try LinkingAPITests.link(connection, "gil", euros) == 200)
        // In yen, for which the operator gave no rate: no dollar price, and a metric says so.
        var yenTransaction = transaction
        yenTransaction["transactionId"] = .string("6900000009")
        yenTransaction["originalTransactionId"] = .string("6900000009")
        yenTransaction["currency"] = .string("JPY")
        yenTransaction["storefront"] = .string("JPN")
        #expect(try LinkingAPITests.link(connection, "ida", try fixture.signer.sign(.object(yenTransaction))) == 200)
        let metrics = try connection.request("GET", "/metrics").text
        #expect(metrics.contains("revenuedot_events_without_usd_price_total 1"))
        // A counter: a reload (SIGHUP) does not reset it.
        guard case .reloaded = service.reload(from: fixture.configPath) else {
            Issue.record("the reload was refused")
            return
        }
        #expect(try connection.request("GET", "/metrics").text.contains("revenuedot_events_without_usd_price_total 1"))

        // In grace: the entitlement lasts until the grace period ends.
        let story = Story(signer: fixture.signer)
        let first = story.period(1, from: now - 2000, until: now - 500)
        try #require(
            try connection.postNotification(try story.notification("SUBSCRIBED", "INITIAL_BUY", period: first)).status == 200)
        // The app posts that period's transaction for hal.
        var period = transaction
        period["transactionId"] = .string(first.transactionId)
        period["originalTransactionId"] = .string(story.originalTransactionId)
        period["purchaseDate"] = .integer(first.purchaseMs)
        period["originalPurchaseDate"] = .integer(story.startMs)
        period["expiresDate"] = .integer(first.expiresMs)
        period["currency"] = .string("USD")
        period["storefront"] = .string("USA")
        #expect(try LinkingAPITests.link(connection, "hal", try fixture.signer.sign(.object(period))) == 200)
        let graceEnd = now + 3 * 86_400_000
        try #require(
            try connection.postNotification(
                try story.notification(
                    "DID_FAIL_TO_RENEW", "GRACE_PERIOD", period: first,
                    renewal: ["isInBillingRetryPeriod": .bool(true), "gracePeriodExpiresDate": .integer(graceEnd)])
            ).status == 200)
        let hal = try LinkingAPITests.subscriber(connection, "hal")
        #expect(hal["entitlements"]?["pro"]?["expires_date"] == hal["entitlements"]?["pro"]?["grace_period_expires_date"])
        #expect(hal["entitlements"]?["pro"]?["grace_period_expires_date"] != .null)

        // A plan change keeps both products, each with its own price.
        let yearly = story.period(2, "pro.yearly", from: now - 400, until: now + 365 * 86_400_000)
        try #require(
            try connection.postNotification(try story.notification("DID_CHANGE_RENEWAL_PREF", "UPGRADE", period: yearly))
                .status == 200)
        let changed = try LinkingAPITests.subscriber(connection, "hal")["subscriptions"]
        #expect(changed?.objectValue?.keys.sorted() == ["pro.monthly", "pro.yearly"])
        #expect(changed?["pro.monthly"]?["price"] == .object(["amount": .number(9.99), "currency": .string("USD")]))
        service.shutdown()

        let purchase = try LinkingAPITests.events(fixture).first { $0.customer == "gil" && $0.type == "INITIAL_PURCHASE" }
        #expect(purchase?.json["price_in_purchased_currency"] == .number(9.99))
        #expect(purchase?.json["price"] == .number(11.1))
        #expect(purchase?.json["tax_percentage"] == .number(0.1597))
        #expect(purchase?.json["commission_percentage"] == .number(0.2521))
        #expect(purchase?.json["takehome_percentage"] == .number(0.7))
        let yen = try LinkingAPITests.events(fixture).first { $0.customer == "ida" && $0.type == "INITIAL_PURCHASE" }
        let yenBody = try WebhookBody.event(fromStored: (yen?.json ?? .null).serialized())
        #expect(yenBody["price"] == .null)
        #expect(yenBody["price_in_purchased_currency"] == .number(9.99))

        // New rates do not change what was sent: replay keeps each event's dollar price.
        let events = try LinkingAPITests.events(fixture).map(\.json)
        try #"{"base": "USD", "rates": {"EUR": 0.8, "JPY": 150}}"#.write(toFile: rates, atomically: true, encoding: .utf8)
        #expect(try ReplayCommand(arguments: ["--config", fixture.configPath]).run() == 0)
        #expect(try LinkingAPITests.events(fixture).map(\.json) == events)
        #expect(yen?.json["currency"] == .string("JPY"))
    }
}
