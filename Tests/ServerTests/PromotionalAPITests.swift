import AppStore
import Foundation
import JSON
import LoopbackClient
import Testing
import Threads

@testable import Server
@testable import Storage
@testable import Subscriptions
@testable import Tools

/// Promotional entitlements over HTTP, in RevenueCat's shapes.
@Suite("Promotional entitlements over HTTP")
struct PromotionalAPITests {
    func post(_ connection: LoopbackConnection, _ path: String, _ body: String, key: String = "sk_test_secret") throws
        -> (Int, JSONValue)
    {
        let response = try connection.request(
            "POST", path, headers: ["Authorization": "Bearer \(key)", "Content-Type": "application/json"],
            body: Data(body.utf8))
        return (response.status, (try? JSONValue(parsing: response.body)) ?? .null)
    }

    @Test func grantRevokeExpireAndReplay() throws {
        let fixture = try ServerFixture()
        var config = try ConfigLoader.load(path: fixture.configPath)
        config.scheduler.intervalMs = 3_600_000
        let service = try RevenueDotService(config: config, log: { _ in })
        try service.start()
        #expect(service.waitForSchedulerStart())
        let connection = try LoopbackConnection(port: service.port)
        let path = "/v1/subscribers/wes/entitlements/pro/promotional"
        let (granted, body) = try post(connection, path, #"{"duration": "weekly"}"#)
        #expect(granted == 201)
        #expect(body["subscriber"]?["entitlements"]?["pro"]?["product_identifier"] == .string("rc_promo_pro_weekly"))
        #expect(body["subscriber"]?["subscriptions"]?["rc_promo_pro_weekly"]?["store"] == .string("promotional"))
        // A grant that ends a second from now, for the scheduler.
        let soon = Int64(Date().timeIntervalSince1970 * 1000) + 300
        #expect(try post(connection, "/v1/subscribers/xia/entitlements/pro/promotional", #"{"end_time_ms": \#(soon)}"#).0 == 201)
        // Bad requests: one line each, nothing stored.
        #expect(try post(connection, path, #"{"duration": "fortnightly"}"#).1["code"] == .integer(7226))
        #expect(try post(connection, path, #"{"end_time_ms": 1}"#).0 == 400)
        #expect(try post(connection, "/v1/subscribers/wes/entitlements/gold/promotional", #"{"duration": "daily"}"#).0 == 404)
        #expect(try post(connection, path, #"{"duration": "daily"}"#, key: "pk_test_public").0 == 401)

        let (revoked, after) = try post(connection, "/v1/subscribers/wes/entitlements/pro/revoke_promotionals", "")
        #expect(revoked == 200)
        let ends = after["subscriber"]?["entitlements"]?["pro"]?["expires_date"]?.stringValue ?? ""
        #expect(ends <= ISO8601UTC.string(fromMilliseconds: Int64(Date().timeIntervalSince1970 * 1000)))
        Thread.sleep(forTimeInterval: 0.5)
        try service.fireDueTimers()
        service.shutdown()

        let events = try LinkingAPITests.events(fixture).map { "\($0.customer ?? "-") \($0.type)" }
        #expect(
            events == [
                "wes NON_RENEWING_PURCHASE", "xia NON_RENEWING_PURCHASE", "wes CANCELLATION", "wes EXPIRATION",
                "xia EXPIRATION",
            ])
        let promotional = try LinkingAPITests.events(fixture).first
        #expect(promotional?.json["store"] == .string("PROMOTIONAL"))
        #expect(promotional?.json["period_type"] == .string("PROMOTIONAL"))
        // Replay makes the same events again.
        let before = try LinkingAPITests.events(fixture).map(\.json)
        #expect(try ReplayCommand(arguments: ["--config", fixture.configPath]).run() == 0)
        #expect(try LinkingAPITests.events(fixture).map(\.json) == before)
    }
}
