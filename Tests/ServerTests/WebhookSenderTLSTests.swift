import Foundation
import Testing

@testable import Server
@testable import Storage
@testable import Tools

/// What https adds: the receiver's certificate must chain to a trusted root and name the URL's
/// host before anything of the event is sent, and the handshake counts against the deadline.
@Suite("Webhook sender over TLS")
struct WebhookSenderTLSTests {
    static func attempt(_ url: String, caFile: String?) -> (outcome: DeliveryOutcome, seconds: Double) {
        let sender = WebhookSender(
            config: WebhookConfig(
                url: URL(string: url)!, authorization: "Bearer secret-token", signingSecret: "s", timeoutSeconds: 1,
                retryDelaysSeconds: [1], concurrency: 2, caFile: caFile))
        let started = Date()
        let outcome = sender.send(Data(#"{"event":{"id":"e"}}"#.utf8), eventId: "e", at: Date())
        return (outcome, Date().timeIntervalSince(started))
    }

    static func reason(_ outcome: DeliveryOutcome) -> String? {
        guard case .failed(nil, let reason) = outcome else { return nil }
        return reason
    }

    /// Without `caFile` only the system's roots are trusted, and the test CA is not one: the
    /// handshake fails with OpenSSL's reason, the server hears the client refuse its CA, and no
    /// byte of the request (token, signature, event) reaches the receiver behind it.
    @Test func anUntrustedCertificateFailsTheAttempt() throws {
        let receiver = try RawReceiver { peer in peer.write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n") }
        defer { receiver.stop() }
        let proxy = try TLSProxy(upstreamPort: receiver.port)
        defer { proxy.stop() }
        let (outcome, _) = Self.attempt(proxy.url, caFile: nil)
        let reason = Self.reason(outcome) ?? "\(outcome)"
        #expect(reason.contains("TLS handshake failed") && reason.contains("certificate verify failed"), "\(reason)")
        #expect(reason.contains("unable to get local issuer certificate"), "\(reason)")
        #expect(proxy.events(count: 1).first?.contains("unknown ca") == true, "\(proxy.events)")
        #expect(receiver.connections == 0)
    }

    /// A certificate from the trusted CA for another host is refused, whether the URL names the
    /// receiver by host name (checked against DNS names, sent as SNI) or by address (checked
    /// against IP addresses).
    @Test(arguments: ["localhost", "127.0.0.1"])
    func aCertificateForAnotherHostFailsTheAttempt(host: String) throws {
        let receiver = try RawReceiver { peer in peer.write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n") }
        defer { receiver.stop() }
        let certificates = try TestCertificates.shared()
        let proxy = try TLSProxy(upstreamPort: receiver.port, server: certificates.otherHost)
        defer { proxy.stop() }
        let (outcome, _) = Self.attempt("https://\(host):\(proxy.port)/hooks", caFile: certificates.caFile)
        let reason = Self.reason(outcome) ?? "\(outcome)"
        let mismatch = host == "localhost" ? "hostname mismatch" : "IP address mismatch"
        #expect(reason.contains("certificate verify failed") && reason.contains(mismatch), "\(reason)")
        #expect(receiver.connections == 0)
    }

    /// The same receiver certificate names 127.0.0.1 too: an https URL by address is delivered.
    @Test func anAddressNamedInTheCertificateIsDelivered() throws {
        let receiver = try WebhookReceiver()
        defer { receiver.stop() }
        let proxy = try TLSProxy(upstreamPort: receiver.port)
        defer { proxy.stop() }
        let (outcome, _) = Self.attempt("https://127.0.0.1:\(proxy.port)/hooks", caFile: try TestCertificates.shared().caFile)
        #expect(outcome == .delivered(status: 200))
        #expect(receiver.received.first?.headers["authorization"] == "Bearer secret-token")
    }

    /// A server that sends half of its handshake and then nothing holds the attempt until its
    /// deadline, not longer: the handshake waits in `poll` for what time the attempt has left.
    @Test func aHandshakeStalledHalfWayFailsAtTheDeadline() throws {
        let proxy = try TLSProxy(mode: .stall)
        defer { proxy.stop() }
        let (outcome, seconds) = Self.attempt(proxy.url, caFile: try TestCertificates.shared().caFile)
        #expect(outcome == .failed(status: nil, reason: "no answer within 1 s"))
        #expect(seconds > 0.9 && seconds < 2, "\(seconds) s")
        #expect(proxy.events(count: 1).first?.hasPrefix("stalled after") == true, "\(proxy.events)")
    }
}
