import AppStore
import Foundation
import JSON
import LoopbackClient
import Testing
import Threads

@testable import Server
@_spi(StoreSQL) @testable import Storage
@testable import Tools

/// Webhook delivery against a real receiver on a loopback port.
@Suite("Webhook delivery")
struct WebhookDeliveryTests {
    static let secret = "whsec_test"

    /// A fixture whose app "demo" tracks new purchases (each notification makes an event at once)
    /// and sends them to `url`.
    static func fixture(url: String, retryDelays: String = "[0, 0, 0]", concurrency: Int = 8) throws -> ServerFixture {
        try ServerFixture(
            demoOptions: """
                "trackNewPurchasesFromServerNotifications": true,
                "webhook": {"url": "\(url)", "authorization": "Bearer hook-token", "signingSecret": "\(secret)",
                            "timeoutSeconds": 5, "retryDelaysSeconds": \(retryDelays), "concurrency": \(concurrency)}
                """)
    }

    /// The status of a new purchase's SUBSCRIBED notification posted on `connection`.
    static func purchase(on connection: LoopbackConnection, _ fixture: ServerFixture) throws -> Int {
        try connection.postNotification(try fixture.signer.notification(type: "SUBSCRIBED", subtype: "INITIAL_BUY")).status
    }

    static func deliveries(_ fixture: ServerFixture) throws -> [String: (status: String, attempts: Int64)] {
        let store = try Store(path: fixture.databasePath)
        defer { store.close() }
        let rows = try store.read { (rows) throws(StoreError) in
            try rows.query("SELECT event_id, status, attempts FROM deliveries", [])
        }
        var result: [String: (status: String, attempts: Int64)] = [:]
        for row in rows { result[row[0].textValue ?? ""] = (row[1].textValue ?? "", row[2].integerValue ?? 0) }
        return result
    }

    @Test func failedAttemptsAreRetriedWithTheSameBodyAndId() throws {
        let receiver = try WebhookReceiver { index, _ in index < 2 ? 500 : 200 }
        defer { receiver.stop() }
        let fixture = try Self.fixture(url: receiver.url)
        let service = try fixture.startService()
        let connection = try LoopbackConnection(port: service.port)
        #expect(try Self.purchase(on: connection, fixture) == 200)
        let received = receiver.wait { $0.count >= 3 }
        Thread.sleep(forTimeInterval: 0.3)  // nothing more may come
        service.shutdown()
        #expect(receiver.received.count == 3)
        #expect(Set(received.map(\.body)).count == 1, "a retry resends the same body")
        #expect(received.first?.type == "INITIAL_PURCHASE")
        #expect(received.first?.json["api_version"] == .string("1.0"))
        let delivery = try Self.deliveries(fixture)[received.first?.id ?? ""]
        #expect(delivery?.status == "delivered")
        #expect(delivery?.attempts == 3)
    }

    @Test func requestsAreSignedAndCarryTheConfiguredHeaders() throws {
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let fixture = try Self.fixture(url: receiver.url)
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        #expect(try Self.purchase(on: connection, fixture) == 200)
        guard let request = receiver.wait(until: { !$0.isEmpty }).first else {
            Issue.record("no webhook arrived")
            return
        }
        #expect(request.headers["content-type"] == "application/json")
        #expect(request.headers["authorization"] == "Bearer hook-token")
        let signature = request.headers["x-revenuedot-signature"] ?? ""
        #expect(signature.hasPrefix("t="))
        #expect(WebhookSignature.verify(header: signature, body: request.body, secret: Self.secret))
        // Under RevenueCat's header too, for receivers written for its signed webhooks.
        #expect(request.headers["x-revenuecat-webhook-signature"] == signature)
        var tampered = request.body
        tampered[tampered.count / 2] ^= 0x01
        #expect(!WebhookSignature.verify(header: signature, body: tampered, secret: Self.secret))
        #expect(!WebhookSignature.verify(header: signature, body: request.body, secret: "another secret"))
        // The keys RevenueCat's INITIAL_PURCHASE carries are there, null when they do not apply;
        // those of other types are not.
        let event = request.event
        for key in ["offer_code", "presented_offering_id", "entitlement_id"] {
            #expect(event[key] == .null, "\(key)")
            #expect(event.objectValue?.keys.contains(key) == true, "\(key) is present")
        }
        for key in ["new_product_id", "cancel_reason", "expiration_reason", "transferred_from"] {
            #expect(event.objectValue?.keys.contains(key) == false, "\(key) is absent")
        }
        #expect(event["experiments"] == .array([]))
        #expect(event["takehome_percentage"] == .number(0.7))
        #expect(event["store"] == .string("APP_STORE"))
        #expect(event["environment"] == .string("SANDBOX"))
        #expect(event["sequence"] == .integer(1))
        // Prices are numbers (USD here, so both are set), as RevenueCat sends them.
        #expect(event["price"] == .number(9.99))
        #expect(event["price_in_purchased_currency"] == .number(9.99))
        #expect(event["currency"] == .string("USD"))
    }

    @Test func aDuplicateNotificationMakesNoNewDelivery() throws {
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let fixture = try Self.fixture(url: receiver.url)
        let service = try fixture.startService()
        let connection = try LoopbackConnection(port: service.port)
        let payload = try fixture.signer.notification(type: "SUBSCRIBED", subtype: "INITIAL_BUY")
        #expect(try connection.postNotification(payload).status == 200)
        receiver.wait { $0.count >= 1 }
        #expect(try connection.postNotification(payload).status == 200)
        Thread.sleep(forTimeInterval: 0.5)
        service.shutdown()
        #expect(receiver.received.count == 1)
        #expect(try Self.deliveries(fixture).count == 1)
    }

    @Test func deadLetterAndResend() throws {
        let healthy = Locked(false)
        let receiver = try WebhookReceiver { _, _ in healthy.value ? 200 : 503 }
        defer { receiver.stop() }
        let fixture = try Self.fixture(url: receiver.url, retryDelays: "[0]")
        let service = try fixture.startService()
        let connection = try LoopbackConnection(port: service.port)
        #expect(try Self.purchase(on: connection, fixture) == 200)
        let failed = receiver.wait { $0.count >= 2 }
        Thread.sleep(forTimeInterval: 0.4)
        #expect(receiver.received.count == 2, "one attempt and one retry, then the dead letter")
        let id = failed.first?.id ?? ""
        #expect(try Self.deliveries(fixture)[id]?.status == "dead")

        let listed = try runCLI(["events", "list", "--status", "dead", "--json", "--config", fixture.configPath])
        #expect(listed.status == 0)
        #expect(listed.output.contains(id))

        healthy.withLock { $0 = true }
        let resent = try runCLI(["events", "resend", id, "--config", fixture.configPath])
        #expect(resent.status == 0, "\(resent.output)")
        let after = receiver.wait { $0.count >= 3 }
        #expect(after.last?.id == id)
        Thread.sleep(forTimeInterval: 0.2)
        service.shutdown()
        #expect(try Self.deliveries(fixture)[id]?.status == "delivered")
        #expect(try runCLI(["events", "resend", "no-such-event", "--config", fixture.configPath]).status == 1)
        // With the server stopped, the store itself: an id in upper case names the same event.
        let upper = try runCLI(["events", "resend", id.uppercased(), "--config", fixture.configPath])
        #expect(upper.status == 0 && upper.output.contains("event \(id) is due"), "\(upper.output)")
    }

    /// `events resend` beside the server goes through it: the route makes one of the key's app's
    /// events due again and wakes its worker, without a second writer waiting for its turn.
    @Test func theResendRouteTakesTheAppsOwnEventsOnly() throws {
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let fixture = try ServerFixture(
            demoOptions: """
                "trackNewPurchasesFromServerNotifications": true, "webhook": {"url": "\(receiver.url)"}
                """, sandboxOptions: #""secretApiKey": "sk_sandbox_secret""#)
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        #expect(try Self.purchase(on: connection, fixture) == 200)
        let id = receiver.wait { $0.count >= 1 }.first?.id ?? ""
        func resend(_ event: String, key: String = "sk_test_secret") throws -> (Int, JSONValue) {
            let response = try connection.request(
                "POST", "/v1/events/\(event)/resend", headers: ["Authorization": "Bearer \(key)"])
            return (response.status, (try? JSONValue(parsing: response.body)) ?? .null)
        }
        #expect(try resend(id, key: "pk_test_public").0 == 401)
        #expect(try resend("no-such-event").0 == 404)
        // Another app's key does not reach this app's events.
        #expect(try resend(id, key: "sk_sandbox_secret").0 == 404)
        let (status, body) = try resend(id)
        #expect(status == 200 && body == .object(["event_id": .string(id), "status": .string("due")]), "\(body)")
        #expect(receiver.wait { $0.count >= 2 }.last?.id == id)
        // An id pasted in upper case names the same event; the answer gives it as stored.
        let (again, named) = try resend(id.uppercased())
        #expect(again == 200 && named["event_id"] == .string(id), "\(named)")
        #expect(receiver.wait { $0.count >= 3 }.last?.id == id)
    }

    @Test func aReceiverDownAcrossARestartGetsTheEventAfterwards() throws {
        // A port with nothing listening: take one, then free it.
        let placeholder = try WebhookReceiver()
        let port = placeholder.port
        placeholder.stop()
        let fixture = try Self.fixture(url: "http://127.0.0.1:\(port)/hooks", retryDelays: "[1, 1, 1, 1]")
        var service = try fixture.startService()
        let connection = try LoopbackConnection(port: service.port)
        #expect(try Self.purchase(on: connection, fixture) == 200)
        Thread.sleep(forTimeInterval: 0.5)
        service.shutdown()
        let pending = try Self.deliveries(fixture)
        #expect(pending.count == 1)
        #expect(pending.values.first?.status == "pending")
        #expect((pending.values.first?.attempts ?? 0) >= 1)

        let receiver = try WebhookReceiver(port: port)
        defer { receiver.stop() }
        service = try fixture.startService()
        let received = receiver.wait { !$0.isEmpty }
        Thread.sleep(forTimeInterval: 0.3)
        service.shutdown()
        #expect(received.count == 1)
        #expect(try Self.deliveries(fixture).values.first?.status == "delivered")

        // Delivered stays delivered: another restart sends nothing.
        service = try fixture.startService()
        Thread.sleep(forTimeInterval: 0.5)
        service.shutdown()
        #expect(receiver.received.count == 1)
    }

    /// Many customers at once, a receiver failing every third request: each customer's events
    /// arrive in `sequence` order (a retry repeats the one in flight, never skips ahead).
    @Test func orderPerCustomerHoldsUnderConcurrentLoad() throws {
        let receiver = try WebhookReceiver { index, _ in index % 3 == 1 ? 500 : 200 }
        defer { receiver.stop() }
        let fixture = try Self.fixture(url: receiver.url, retryDelays: "[0, 0, 0, 0, 0, 0, 0, 0, 0, 0]")
        let service = try fixture.startService()
        let purchases = (0..<12).map { "91000000\(String(format: "%02d", $0))" }
        let perPurchase = 5
        let failures = Locked(0)
        runOnThreads(purchases.count) { index in
            guard let connection = try? LoopbackConnection(port: service.port) else { return }
            for step in 0..<perPurchase {
                let type = step == 0 ? "SUBSCRIBED" : "DID_RENEW"
                let payload = try? fixture.signer.notification(
                    type: type, subtype: step == 0 ? "INITIAL_BUY" : nil, originalTransactionId: purchases[index])
                if (try? connection.postNotification(payload ?? ""))?.status != 200 { failures.withLock { $0 += 1 } }
            }
        }
        #expect(failures.value == 0)
        let total = purchases.count * perPurchase
        receiver.wait(seconds: 30) { received in
            Set(received.filter { _ in true }.map(\.id)).count >= total
        }
        Thread.sleep(forTimeInterval: 0.3)
        service.shutdown()
        var byCustomer: [String: [Int64]] = [:]
        for request in receiver.received {
            guard let customer = request.event["app_user_id"]?.stringValue,
                case .integer(let sequence)? = request.event["sequence"]
            else { continue }
            byCustomer[customer, default: []].append(sequence)
        }
        #expect(byCustomer.count == purchases.count)
        // An event answered 2xx is never sent again: one successful answer per event id.
        var answered: [String: Int] = [:]
        for (index, request) in receiver.received.enumerated() where index % 3 != 1 { answered[request.id, default: 0] += 1 }
        #expect(answered.count == total)
        #expect(answered.values.allSatisfy { $0 == 1 }, "\(answered.filter { $0.value > 1 })")
        for (customer, sequences) in byCustomer {
            #expect(sequences == sequences.sorted(), "\(customer) received \(sequences)")
            #expect(Set(sequences) == Set(1...Int64(perPurchase)), "\(customer) received \(sequences)")
        }
        #expect(try Self.deliveries(fixture).values.allSatisfy { $0.status == "delivered" })
    }

    @Test func eventsCanBePolled() throws {
        let fixture = try ServerFixture(demoOptions: #""trackNewPurchasesFromServerNotifications": true"#)
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        for _ in 0..<3 {
            #expect(try Self.purchase(on: connection, fixture) == 200)
        }
        func page(_ query: String, key: String = "sk_test_secret") throws -> (Int, JSONValue) {
            let response = try connection.request(
                "GET", "/v1/events\(query)", headers: ["Authorization": "Bearer \(key)"])
            return (response.status, (try? JSONValue(parsing: response.body)) ?? .null)
        }
        #expect(try page("", key: "pk_test_public").0 == 401)
        #expect(try page("?limit=0").0 == 400)
        #expect(try page("?after=-1").0 == 400)
        // Two cursors, or two limits: which one was meant is not guessed.
        #expect(try page("?after=5&after=6").1["error"]?["message"] == .string("after is given more than once"))
        #expect(try page("?limit=2&limit=3").0 == 400)
        let (status, first) = try page("?limit=2")
        #expect(status == 200)
        #expect(first["events"]?.arrayValue?.count == 2)
        guard case .integer(let cursor)? = first["next_cursor"] else {
            Issue.record("no next_cursor")
            return
        }
        let (_, second) = try page("?after=\(cursor)&limit=2")
        #expect(second["events"]?.arrayValue?.count == 1)
        #expect(second["events"]?.arrayValue?.first?["event"]?["type"] == .string("INITIAL_PURCHASE"))
        guard case .integer(let last)? = second["next_cursor"] else {
            Issue.record("no next_cursor on the last page: \(second)")
            return
        }
        let (_, empty) = try page("?after=\(last)")
        #expect(empty["events"]?.arrayValue?.isEmpty == true)
        #expect(empty["next_cursor"] == .integer(last))
        // A cursor past every position given was never handed out: waiting on it would skip events.
        let (aheadStatus, ahead) = try page("?after=\(last + 1)")
        #expect(aheadStatus == 400)
        #expect(
            ahead["error"]?["message"]
                == .string(
                    "after \(last + 1) is past the newest event position, \(last): go on from \(last) if this database "
                        + "gave it (a power loss took back events not yet on disk), else from 0"))
        #expect(ahead["error"]?["code"] == .string("cursor_ahead"))
        let ids = (first["events"]?.arrayValue ?? []) + (second["events"]?.arrayValue ?? [])
        #expect(Set(ids.compactMap { $0["event"]?["id"]?.stringValue }).count == 3)

        // A stored event that does not decode is listed with an error, and the cursor moves past it.
        let other = try Store(path: fixture.databasePath)
        try other.write { transaction in
            try transaction.execute(
                "INSERT INTO events (id, app_id, type, json, created_at, position) VALUES ('broken', 'demo', 'TEST', 'not json', 0, ?)",
                [.integer(last + 1)])
        }
        other.close()
        // Listed once the server knows it is on disk: its next commit that makes an event.
        #expect(try page("?after=\(last)").1["events"]?.arrayValue?.isEmpty == true)
        #expect(try Self.purchase(on: connection, fixture) == 200)
        let (brokenStatus, broken) = try page("?after=\(last)")
        #expect(brokenStatus == 200)
        #expect(broken["events"]?.arrayValue?.first?["error"] != nil)
        #expect(broken["events"]?.arrayValue?.count == 2)
        #expect(broken["next_cursor"] == .integer(last + 2))

        // No webhook is configured for this app: resending would leave the event waiting forever.
        let eventId = ids.first?["event"]?["id"]?.stringValue ?? ""
        let resend = try runCLI(["events", "resend", eventId, "--config", fixture.configPath])
        #expect(resend.status == 1)
        #expect(resend.output.contains("has no webhook"))
    }
}
