import Foundation
import Testing

@testable import Server
@testable import Tools

/// The one way a webhook leaves, over plain http and over https: pooled connections of our own
/// client, whatever the URL.
@Suite("Webhook sender")
struct WebhookSenderTests {
    @Test(arguments: Transport.allCases)
    func answersBecomeOutcomes(transport: Transport) throws {
        let receiver = try WebhookReceiver { index, _ in index == 1 ? 500 : 204 }
        defer { receiver.stop() }
        let (url, proxy) = try transport.url(port: receiver.port, plainURL: receiver.url)
        defer { proxy?.stop() }
        let sender = WebhookSender(config: try transport.config(url, timeoutSeconds: 5))
        let body = Data(#"{"api_version":"1.0","event":{"id":"e"}}"#.utf8)
        #expect(sender.send(body, eventId: "e", at: Date()) == .delivered(status: 204))
        #expect(sender.send(body, eventId: "e", at: Date()) == .failed(status: 500, reason: "answered HTTP 500"))
        #expect(sender.send(body, eventId: "e", at: Date()) == .delivered(status: 204))
        let received = receiver.received
        #expect(received.count == 3)
        #expect(received.allSatisfy { $0.body == body && $0.headers["authorization"] == "Bearer secret-token" })
        #expect(WebhookSignature.verify(header: received[0].headers["x-revenuedot-signature"] ?? "", body: body, secret: "s"))
        if let proxy {
            #expect(proxy.events == ["handshake done"], "one pooled TLS connection carried all three")
        }
    }

    @Test(arguments: Transport.allCases)
    func nobodyListeningIsAFailureWithoutStatus(transport: Transport) throws {
        let placeholder = try WebhookReceiver()
        let port = placeholder.port
        placeholder.stop()
        let url = "\(transport == .tls ? "https" : "http")://localhost:\(port)/hooks"
        let outcome = WebhookSender(config: try transport.config(url, timeoutSeconds: 5))
            .send(Data("{}".utf8), eventId: "e", at: Date())
        guard case .failed(let status, let reason) = outcome else {
            Issue.record("expected a failure, got \(outcome)")
            return
        }
        #expect(status == nil)
        #expect(reason.contains("Connection refused"), "\(reason)")
    }

    /// A receiver slower than `timeoutSeconds` is a failed attempt (retried later), and the late
    /// connection is not reused for the next event.
    @Test(arguments: Transport.allCases)
    func aSlowReceiverTimesOut(transport: Transport) throws {
        let receiver = try WebhookReceiver { index, _ in
            if index == 0 { Thread.sleep(forTimeInterval: 2.5) }
            return 200
        }
        defer { receiver.stop() }
        let (url, proxy) = try transport.url(port: receiver.port, plainURL: receiver.url)
        defer { proxy?.stop() }
        let sender = WebhookSender(config: try transport.config(url, timeoutSeconds: 1))
        let started = Date()
        guard case .failed(let status, _) = sender.send(Data("{}".utf8), eventId: "e", at: Date()) else {
            Issue.record("a receiver slower than the timeout must fail the attempt")
            return
        }
        #expect(status == nil)
        #expect(Date().timeIntervalSince(started) < 2.4)
        #expect(sender.send(Data("{}".utf8), eventId: "e", at: Date()) == .delivered(status: 200))
    }

    /// A host name goes through the same client: `localhost` is resolved (`getaddrinfo`) and its
    /// addresses tried in order until one answers (the receiver listens on 127.0.0.1 only, so
    /// an `::1` listed first is refused and the next address taken).
    @Test func aHostNameIsResolved() throws {
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let sender = WebhookSender(
            config: try Transport.plain.config("http://localhost:\(receiver.port)/hooks", timeoutSeconds: 2))
        #expect(sender.send(Data("{}".utf8), eventId: "e", at: Date()) == .delivered(status: 200))
        #expect(receiver.received.first?.headers["host"] == "localhost:\(receiver.port)")
    }
}
