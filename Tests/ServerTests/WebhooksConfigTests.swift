import Foundation
import LoopbackClient
import Testing

@testable import Server
@testable import Tools

/// Several webhooks per app, each with RevenueCat's filters (environment, event types).
@Suite("Several webhooks")
struct SeveralWebhooksTests {
    @Test(arguments: [
        (#""webhooks": [{"url": "http://a/"}], "webhook": {"url": "http://b/"}"#, "give webhooks or webhook, not both"),
        (#""webhooks": [{"url": "http://a/", "name": "x"}, {"url": "http://b/", "name": "x"}]"#, "\"x\" names two webhooks"),
        (#""webhooks": [{"url": "http://a/", "environments": ["STAGING"]}]"#, "\"STAGING\" is not PRODUCTION or SANDBOX"),
        (#""webhooks": [{"url": "http://a/", "eventTypes": ["PURCHASE"]}]"#, "\"PURCHASE\" is not an event type"),
        (#""webhooks": [{"url": "http://a/", "orderHoldSeconds": -1}]"#, "orderHoldSeconds"),
        (#""webhooks": [{"url": "http://a/", "name": "a"}, {"url": "http://b/"}]"#, "with several webhooks, name each"),
        (
            #""webhooks": [{"url": "http://a/", "name": "a"}, {"url": "http://b/", "name": "b", "previousNames": ["a"]}]"#,
            #"webhooks[1].previousNames[0]: "a" is the name of one of this app's webhooks"#
        ),
        (#""webhook": {"url": "http://a/"}, "removedWebhooks": [""]"#, #"removedWebhooks[0]: "" is the name of one"#),
        (
            #""webhook": {"url": "http://a/", "previousNames": ["x"]}, "removedWebhooks": ["x"]"#,
            #"removedWebhooks[0]: "x" is retired twice"#
        ),
        (#""webhook": {"url": "http://a/", "previousNames": [1]}"#, "webhook.previousNames[0]: must be a webhook name"),
    ])
    func badWebhookListsAreOneClearLine(options: String, problem: String) throws {
        let fixture = try ServerFixture(demoOptions: options)
        let error = #expect(throws: ConfigError.self) { try ConfigLoader.load(path: fixture.configPath) }
        #expect(error?.description.contains(problem) == true, "\(error?.description ?? "")")
    }

    /// Two receivers: one takes only production INITIAL_PURCHASE events, the other everything.
    /// A sandbox purchase reaches only the second; a production purchase and its TRANSFER reach
    /// the second whole and the first with its INITIAL_PURCHASE alone.
    @Test func eachWebhookTakesWhatItsFiltersSay() throws {
        let everything = try WebhookReceiver()
        let production = try WebhookReceiver()
        defer {
            everything.stop()
            production.stop()
        }
        let fixture = try ServerFixture(
            demoOptions: #"""
                "webhooks": [
                  {"url": "\#(production.url)", "name": "billing", "environments": ["PRODUCTION"], "eventTypes": ["INITIAL_PURCHASE"]},
                  {"url": "\#(everything.url)", "name": "audit"}
                ]
                """#)
        let config = try ConfigLoader.load(path: fixture.configPath)
        #expect(config.app("demo")?.webhooks.map(\.id) == ["billing", "audit"])
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        #expect(
            try LinkingAPITests.link(connection, "zed", try LinkingAPITests.storeKitTransaction(fixture, original: "6800000001"))
                == 200)
        let received = everything.wait { !$0.isEmpty }
        #expect(received.first?.event["type"] == .string("INITIAL_PURCHASE"))
        Thread.sleep(forTimeInterval: 0.5)
        #expect(production.wait(seconds: 0.2) { !$0.isEmpty }.isEmpty)
        let bought = try LinkingAPITests.storeKitTransaction(fixture, original: "6800000009", environment: "Production")
        #expect(try LinkingAPITests.link(connection, "yan", bought) == 200)
        #expect(try LinkingAPITests.link(connection, "zoe", bought) == 200)  // a TRANSFER
        let all = everything.wait { $0.contains { $0.event["type"] == .string("TRANSFER") } }
        #expect(all.map(\.type) == ["INITIAL_PURCHASE", "INITIAL_PURCHASE", "TRANSFER"])
        let billed = production.wait { !$0.isEmpty }
        Thread.sleep(forTimeInterval: 0.5)
        #expect(billed.map(\.type) == ["INITIAL_PURCHASE"])
        #expect(billed.first?.event["environment"] == .string("PRODUCTION"))
        #expect(production.wait(seconds: 0.2) { $0.count > 1 }.count == 1)
        // `events list` says which webhook each delivery is for.
        service.shutdown()
        let listed = try runCLI(["events", "list", "--config", fixture.configPath])
        #expect(listed.status == 0, "\(listed.output)")
        let lines = listed.output.split(separator: "\n")
        #expect(lines.first?.contains("WEBHOOK") == true, "\(listed.output)")
        #expect(lines.contains { $0.contains("INITIAL_PURCHASE") && $0.contains(" audit ") }, "\(listed.output)")
    }

    /// A failing event holds its customer's later events back for `orderHoldSeconds` only:
    /// then they go, and it keeps retrying; `sequence` still tells the order.
    @Test func aFailingEventStopsHoldingLaterOnesAfterTheHold() throws {
        let receiver = try WebhookReceiver { _, body in
            String(decoding: body, as: UTF8.self).contains("INITIAL_PURCHASE") ? 500 : 200
        }
        defer { receiver.stop() }
        let fixture = try ServerFixture(
            demoOptions: #""webhooks": [{"url": "\#(receiver.url)", "orderHoldSeconds": 1, "retryDelaysSeconds": [60]}]"#)
        let service = try fixture.startService()
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        let signed = try LinkingAPITests.storeKitTransaction(fixture, original: "6800000002")
        #expect(try LinkingAPITests.link(connection, "ana", signed) == 200)
        #expect(try LinkingAPITests.link(connection, "bea", signed) == 200)  // a TRANSFER to bea
        #expect(try LinkingAPITests.link(connection, "ana", signed) == 200)  // and back: ana's second event
        let started = Date()
        let received = receiver.wait(seconds: 10) { received in
            received.contains {
                $0.event["type"] == .string("TRANSFER") && $0.event["transferred_to"] == .array([.string("ana")])
            }
        }
        let back = try #require(received.first { $0.event["transferred_to"] == .array([.string("ana")]) })
        let purchases = received.filter { $0.event["type"] == .string("INITIAL_PURCHASE") }
        #expect(purchases.count == 1)
        // Held for the second from the failed attempt on, not sent at once, nor held until the
        // retry a minute later.
        let waited = back.at.timeIntervalSince(purchases.first?.at ?? started)
        #expect(waited >= 0.9 && waited < 5, "\(waited) s")
        // Sent out of order, but its sequence puts it after ana's purchase.
        if case .integer(let first)? = purchases.first?.event["sequence"], case .integer(let later)? = back.event["sequence"] {
            #expect(later > first)
        } else {
            Issue.record("no sequence: \(purchases.first?.event ?? .null), \(back.event)")
        }
    }
}
