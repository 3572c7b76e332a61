import Foundation
import Testing

@testable import Server
@testable import Storage
@testable import Tools

/// The webhook sender, over plain http and over https, against receivers that attack it: absurd
/// numbers, trickled and endless answers, redirects. Every attempt ends by its deadline with an
/// outcome; none traps, none follows a redirect, and none reads more than the body limit.
@Suite("Webhook sender against hostile receivers")
struct WebhookSenderAttackTests {
    /// The attempt's deadline: the shortest the configuration allows, so that the attacks that
    /// last until it keep the suite fast.
    static let timeoutSeconds = 1

    /// A sender to `receiver` over `transport`, and the TLS proxy to stop after the test.
    static func sender(_ receiver: RawReceiver, _ transport: Transport) throws -> (WebhookSender, TLSProxy?) {
        let (url, proxy) = try transport.url(port: receiver.port, plainURL: receiver.url)
        return (WebhookSender(config: try transport.config(url, timeoutSeconds: timeoutSeconds)), proxy)
    }

    /// Sends one event and returns its outcome and how long the attempt took.
    static func attempt(_ sender: WebhookSender) -> (outcome: DeliveryOutcome, seconds: Double) {
        let started = Date()
        let outcome = sender.send(Data(#"{"event":{"id":"e"}}"#.utf8), eventId: "e", at: Date())
        return (outcome, Date().timeIntervalSince(started))
    }

    // MARK: - Numbers

    /// The head a receiver answers with, then "abc", holding the connection open until the sender
    /// leaves.
    struct NumberAttack: Sendable, CustomTestStringConvertible {
        var head: String
        var transport: Transport
        var testDescription: String { "\(head.debugDescription) \(transport)" }
    }

    /// Absurd numbers in the answer's head: each fails the attempt, malformed at once or, for
    /// counts in range, at the deadline since the body never comes. Content-Length 2^63 - 512 to
    /// 2^63 - 1 crashed the server when libcurl and Foundation read https answers, and libcurl
    /// read "1e19" as 1: those go over https too.
    static let numberAttacks: [NumberAttack] = {
        let heads = [
            "HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775807",
            "HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775296",
            "HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775808",
            "HTTP/1.1 200 OK\r\nContent-Length: 18446744073709551616",
            "HTTP/1.1 200 OK\r\nContent-Length: -1",
            "HTTP/1.1 200 OK\r\nContent-Length: 1e19",
            "HTTP/1.1 200 OK\r\nContent-Length:  12 ",
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n7fffffffffffffff",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nffffffffffffffffff",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-5",
            "HTTP/1.1 9223372036854775807 OK\r\nContent-Length: 3",
            "HTTP/1.1 -1 OK\r\nContent-Length: 3",
            "HTTP/1.1 2000 OK\r\nContent-Length: 3",
        ]
        return heads.map { NumberAttack(head: $0, transport: .plain) }
            + heads.prefix(2).map { NumberAttack(head: $0, transport: .tls) }
            + heads.filter { $0.hasSuffix("1e19") }.map { NumberAttack(head: $0, transport: .tls) }
    }()

    @Test(arguments: numberAttacks)
    func absurdNumbersFailTheAttempt(attack: NumberAttack) throws {
        let receiver = try RawReceiver { peer in
            peer.write(attack.head + (attack.head.contains("chunked") ? "\r\nabc" : "\r\n\r\nabc"))
            _ = peer.waitForClose(seconds: 5)
        }
        defer { receiver.stop() }
        let (sender, proxy) = try Self.sender(receiver, attack.transport)
        defer { proxy?.stop() }
        let (outcome, seconds) = Self.attempt(sender)
        guard case .failed(let status, _) = outcome else {
            Issue.record("expected a failed attempt, got \(outcome)")
            return
        }
        #expect(status == nil)
        #expect(seconds < Double(Self.timeoutSeconds) + 1)
        #expect(receiver.requests.count == 1)
    }

    // MARK: - Slow and long answers

    /// One byte every 0.4 s, of the head or of a body, would take most of a minute, each byte
    /// well within a read timeout of 1 s: the attempt fails at its deadline instead, however
    /// steadily the bytes come.
    @Test(arguments: Transport.allCases, [true, false])
    func aTricklingAnswerFailsAtTheDeadline(transport: Transport, trickleHead: Bool) throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"
        let receiver = try RawReceiver { peer in
            if !trickleHead { peer.write(head) }
            for byte in (trickleHead ? head : String(repeating: "x", count: 100)).utf8 {
                guard peer.write(Data([byte])) else { return }
                Thread.sleep(forTimeInterval: 0.4)
            }
        }
        defer { receiver.stop() }
        let (sender, proxy) = try Self.sender(receiver, transport)
        defer { proxy?.stop() }
        let (outcome, seconds) = Self.attempt(sender)
        #expect(outcome == .failed(status: nil, reason: "no answer within \(Self.timeoutSeconds) s"))
        #expect(seconds > Double(Self.timeoutSeconds) - 0.1 && seconds < Double(Self.timeoutSeconds) + 1, "\(seconds) s")
    }

    /// An answer whose body goes on past the limit (256 KiB sent of a declared 100 MB, then
    /// nothing) is answered by its status once 64 KiB have come: a 2xx is a delivery, at once,
    /// not a wait for the deadline or for a body that never ends.
    @Test(arguments: Transport.allCases)
    func aBodyPastTheLimitIsAnsweredByItsStatus(transport: Transport) throws {
        let receiver = try RawReceiver { peer in
            peer.write("HTTP/1.1 200 OK\r\nContent-Length: \(100 << 20)\r\n\r\n")
            peer.write(Data(count: 256 << 10))
            _ = peer.waitForClose(seconds: 5)
        }
        defer { receiver.stop() }
        let (sender, proxy) = try Self.sender(receiver, transport)
        defer { proxy?.stop() }
        let (outcome, seconds) = Self.attempt(sender)
        #expect(outcome == .delivered(status: 200))
        #expect(seconds < Double(Self.timeoutSeconds) - 0.1, "\(seconds) s")
    }

    /// A 100 MB answer: the rest past the limit is never read. The receiver's writes fail once
    /// the sender has closed the connection, a few MB later (what the kernel's buffers took, and
    /// over https the TLS proxy's too): the sender's memory is bounded by the limit, not by the
    /// answer.
    @Test(arguments: Transport.allCases)
    func aHugeBodyIsReadOnlyUpToTheLimit(transport: Transport) throws {
        let total = 100 << 20
        let receiver = try RawReceiver { peer in
            guard peer.write("HTTP/1.1 200 OK\r\nContent-Length: \(total)\r\n\r\n") else { return }
            let chunk = Data(count: 64 << 10)
            for _ in 0..<(total / chunk.count) where !peer.write(chunk) { return }
        }
        defer { receiver.stop() }
        let (sender, proxy) = try Self.sender(receiver, transport)
        defer { proxy?.stop() }
        let (outcome, seconds) = Self.attempt(sender)
        #expect(outcome == .delivered(status: 200))
        #expect(seconds < Double(Self.timeoutSeconds))
        #expect(receiver.wait { $0.finishedScripts == 1 }, "the receiver's writes end once the sender has gone")
        #expect(receiver.written < (transport == .plain ? 16 : 32) << 20, "\(receiver.written) bytes written of \(total)")
    }

    // MARK: - Redirects

    /// Where a hostile receiver redirects: to another receiver (absolute), or back to itself
    /// under another path (relative, resolved against the webhook URL).
    enum RedirectTarget: String, CaseIterable, Sendable {
        case elsewhere, sameHost
    }

    /// Every redirect status fails the attempt with its `Location` in the reason, and nothing
    /// is sent where it points: the event, its `Authorization` and its signature stay with the
    /// configured URL.
    @Test(arguments: [301, 302, 303, 307, 308], Transport.allCases)
    func redirectsAreNeverFollowed(status: Int, transport: Transport) throws {
        let target = try RawReceiver { peer in peer.write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n") }
        defer { target.stop() }
        for pointing in RedirectTarget.allCases {
            let location = pointing == .elsewhere ? "http://127.0.0.1:\(target.port)/stolen" : "/hooks/again"
            let receiver = try RawReceiver { peer in
                peer.write("HTTP/1.1 \(status) Moved\r\nLocation: \(location)\r\nContent-Length: 2\r\n\r\nno")
            }
            defer { receiver.stop() }
            let (sender, proxy) = try Self.sender(receiver, transport)
            defer { proxy?.stop() }
            let (outcome, _) = Self.attempt(sender)
            #expect(
                outcome == .failed(status: status, reason: "answered HTTP \(status) (redirect to \(location), not followed)"))
            // A redirect followed would have been answered before `send` returned.
            #expect(receiver.requests.count == 1, "\(pointing): \(receiver.requests)")
        }
        #expect(target.connections == 0, "\(target.requests)")
    }
}
