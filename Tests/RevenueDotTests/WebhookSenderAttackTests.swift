import Foundation
import Testing

@testable import RevenueDot

/// The webhook sender, both ways a webhook leaves (`direct: true` over pooled sockets, `false`
/// through URLSession), against receivers that attack it: absurd numbers, trickled and endless
/// answers, redirects. Every attempt ends by its deadline with an outcome; none traps, none
/// follows a redirect, and the direct path reads no more than the body limit.
@Suite("Webhook sender against hostile receivers")
struct WebhookSenderAttackTests {
    /// The attempt's deadline: the shortest the configuration allows, so that the attacks that
    /// last until it keep the suite fast.
    static let timeoutSeconds = 1

    static func sender(_ url: String, direct: Bool) -> WebhookSender {
        WebhookSender(
            config: WebhookConfig(
                url: URL(string: url)!, authorization: "Bearer secret-token", signingSecret: "s",
                timeoutSeconds: timeoutSeconds, retryDelaysSeconds: [1], concurrency: 2),
            direct: direct)
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
        var direct: Bool
        /// What libcurl makes of the head, on the URLSession path: nil when it fails the attempt.
        var sessionDelivers: Bool = false
        var testDescription: String { "\(head.debugDescription) \(direct ? "direct" : "URLSession")" }
    }

    /// Absurd numbers in the answer's head. The direct path fails each attempt (malformed at once,
    /// or, for counts in range, at the deadline since the body never comes). On the URLSession path
    /// libcurl parses the head: it fails or waits for the deadline, except that it reads
    /// "Content-Length: 1e19" as 1 and takes "a" as a whole 200 answer.
    ///
    /// Not on the URLSession path: Content-Length 2^63 - 512 to 2^63 - 1, on which
    /// swift-corelibs-foundation traps (see `WebhookSender`).
    static let numberAttacks: [NumberAttack] = {
        let heads = [
            "HTTP/1.1 200 OK\r\nContent-Length: 9223372036854775807",
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
        return heads.map { NumberAttack(head: $0, direct: true) }
            + heads.dropFirst().map { NumberAttack(head: $0, direct: false, sessionDelivers: $0.hasSuffix("1e19")) }
    }()

    @Test(arguments: numberAttacks)
    func absurdNumbersFailTheAttempt(attack: NumberAttack) throws {
        let receiver = try RawReceiver { peer in
            peer.write(attack.head + (attack.head.contains("chunked") ? "\r\nabc" : "\r\n\r\nabc"))
            _ = peer.waitForClose(seconds: 5)
        }
        defer { receiver.stop() }
        let (outcome, seconds) = Self.attempt(Self.sender(receiver.url, direct: attack.direct))
        if attack.sessionDelivers {
            #expect(outcome == .delivered(status: 200))
        } else {
            guard case .failed(let status, _) = outcome else {
                Issue.record("expected a failed attempt, got \(outcome)")
                return
            }
            #expect(status == nil)
        }
        #expect(seconds < Double(Self.timeoutSeconds) + 1)
        #expect(receiver.requests.count == 1)
    }

    // MARK: - Slow and long answers

    /// One byte every 0.4 s, of the head or of a body, would take most of a minute, each byte
    /// well within a read timeout of 1 s: the attempt fails at its deadline instead, however
    /// steadily the bytes come.
    @Test(arguments: [true, false], [true, false])
    func aTricklingAnswerFailsAtTheDeadline(direct: Bool, trickleHead: Bool) throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"
        let receiver = try RawReceiver { peer in
            if !trickleHead { peer.write(head) }
            for byte in (trickleHead ? head : String(repeating: "x", count: 100)).utf8 {
                guard peer.write(Data([byte])) else { return }
                Thread.sleep(forTimeInterval: 0.4)
            }
        }
        defer { receiver.stop() }
        let (outcome, seconds) = Self.attempt(Self.sender(receiver.url, direct: direct))
        #expect(outcome == .failed(status: nil, reason: "no answer within \(Self.timeoutSeconds) s"))
        #expect(seconds > Double(Self.timeoutSeconds) - 0.1 && seconds < Double(Self.timeoutSeconds) + 1, "\(seconds) s")
    }

    /// An answer whose body goes on past the limit (256 KiB sent of a declared 100 MB, then
    /// nothing) is answered by its status once 64 KiB have come: a 2xx is a delivery, at once,
    /// not a wait for the deadline or for a body that never ends.
    @Test(arguments: [true, false])
    func aBodyPastTheLimitIsAnsweredByItsStatus(direct: Bool) throws {
        let receiver = try RawReceiver { peer in
            peer.write("HTTP/1.1 200 OK\r\nContent-Length: \(100 << 20)\r\n\r\n")
            peer.write(Data(count: 256 << 10))
            _ = peer.waitForClose(seconds: 5)
        }
        defer { receiver.stop() }
        let (outcome, seconds) = Self.attempt(Self.sender(receiver.url, direct: direct))
        #expect(outcome == .delivered(status: 200))
        #expect(seconds < Double(Self.timeoutSeconds) - 0.1, "\(seconds) s")
    }

    /// A 100 MB answer on the direct path: the rest past the limit is never read. The receiver's
    /// writes fail once the sender has closed the connection, a few MB later (what the kernel's
    /// buffers took): the sender's memory is bounded by the limit, not by the answer.
    ///
    /// Not on the URLSession path: Foundation on Linux goes on reading (and queueing for the
    /// delegate) until the cancel takes effect, which over loopback is the whole 100 MB.
    @Test func aHugeBodyIsReadOnlyUpToTheLimit() throws {
        let total = 100 << 20
        let receiver = try RawReceiver { peer in
            guard peer.write("HTTP/1.1 200 OK\r\nContent-Length: \(total)\r\n\r\n") else { return }
            let chunk = Data(count: 64 << 10)
            for _ in 0..<(total / chunk.count) where !peer.write(chunk) { return }
        }
        defer { receiver.stop() }
        let (outcome, seconds) = Self.attempt(Self.sender(receiver.url, direct: true))
        #expect(outcome == .delivered(status: 200))
        #expect(seconds < Double(Self.timeoutSeconds))
        #expect(receiver.wait { $0.finishedScripts == 1 }, "the receiver's writes end once the sender has gone")
        #expect(receiver.written < 16 << 20, "\(receiver.written) bytes written of \(total)")
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
    @Test(arguments: [301, 302, 303, 307, 308], [true, false])
    func redirectsAreNeverFollowed(status: Int, direct: Bool) throws {
        let target = try RawReceiver { peer in peer.write("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n") }
        defer { target.stop() }
        for pointing in RedirectTarget.allCases {
            let location = pointing == .elsewhere ? "http://127.0.0.1:\(target.port)/stolen" : "/hooks/again"
            let receiver = try RawReceiver { peer in
                peer.write("HTTP/1.1 \(status) Moved\r\nLocation: \(location)\r\nContent-Length: 2\r\n\r\nno")
            }
            defer { receiver.stop() }
            let (outcome, _) = Self.attempt(Self.sender(receiver.url, direct: direct))
            #expect(
                outcome == .failed(status: status, reason: "answered HTTP \(status) (redirect to \(location), not followed)"))
            // A redirect followed would have been answered before `send` returned.
            #expect(receiver.requests.count == 1, "\(pointing): \(receiver.requests)")
        }
        #expect(target.connections == 0, "\(target.requests)")
    }
}
