import Foundation
import Testing

@testable import RevenueDot

/// Both ways a webhook leaves: pooled sockets for plain http to an address, URLSession otherwise.
@Suite("Webhook sender")
struct WebhookSenderTests {
    static func config(_ url: String) -> WebhookConfig {
        WebhookConfig(
            url: URL(string: url)!, authorization: "Bearer t", signingSecret: "s", timeoutSeconds: 5,
            retryDelaysSeconds: [1], concurrency: 2)
    }

    @Test(arguments: [true, false])
    func answersBecomeOutcomes(direct: Bool) throws {
        let receiver = try WebhookReceiver { index, _ in index == 1 ? 500 : 204 }
        defer { receiver.stop() }
        let sender = WebhookSender(config: Self.config(receiver.url), direct: direct)
        let body = Data(#"{"api_version":"1.0","event":{"id":"e"}}"#.utf8)
        #expect(sender.send(body, eventId: "e", at: Date()) == .delivered(status: 204))
        #expect(sender.send(body, eventId: "e", at: Date()) == .failed(status: 500, reason: "answered HTTP 500"))
        #expect(sender.send(body, eventId: "e", at: Date()) == .delivered(status: 204))
        let received = receiver.received
        #expect(received.count == 3)
        #expect(received.allSatisfy { $0.body == body && $0.headers["authorization"] == "Bearer t" })
        #expect(WebhookSignature.verify(header: received[0].headers["x-revenuedot-signature"] ?? "", body: body, secret: "s"))
    }

    @Test(arguments: [true, false])
    func nobodyListeningIsAFailureWithoutStatus(direct: Bool) throws {
        let placeholder = try WebhookReceiver()
        let url = placeholder.url
        placeholder.stop()
        let outcome = WebhookSender(config: Self.config(url), direct: direct).send(Data("{}".utf8), eventId: "e", at: Date())
        guard case .failed(let status, _) = outcome else {
            Issue.record("expected a failure, got \(outcome)")
            return
        }
        #expect(status == nil)
    }

    /// A receiver slower than `timeoutSeconds` is a failed attempt (retried later), and the late
    /// connection is not reused for the next event.
    @Test(arguments: [true, false])
    func aSlowReceiverTimesOut(direct: Bool) throws {
        let receiver = try WebhookReceiver { index, _ in
            if index == 0 { Thread.sleep(forTimeInterval: 2.5) }
            return 200
        }
        defer { receiver.stop() }
        var config = Self.config(receiver.url)
        config.timeoutSeconds = 1
        let sender = WebhookSender(config: config, direct: direct)
        let started = Date()
        guard case .failed(let status, _) = sender.send(Data("{}".utf8), eventId: "e", at: Date()) else {
            Issue.record("a receiver slower than the timeout must fail the attempt")
            return
        }
        #expect(status == nil)
        #expect(Date().timeIntervalSince(started) < 2.4)
        #expect(sender.send(Data("{}".utf8), eventId: "e", at: Date()) == .delivered(status: 200))
    }
}
