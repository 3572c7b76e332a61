import Foundation
import LoopbackClient
import Testing
import Threads

@testable import Server

/// Lines left out under a `LineAllowance` are counted in the log even when no line follows
/// them: a summary line (`left_out`, no event of its own) says the count once a second has
/// passed without a line to say it.
@Suite struct LeftOutLinesTests {
    /// `left_out` of a text line, 0 when it has none.
    static func leftOut(_ line: String) -> Int {
        line.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix("left_out=") }.flatMap { Int($0.dropFirst(9)) } ?? 0
    }

    /// How many of `lines` stand for one occurrence each (not a summary), plus every count said.
    static func counted(_ lines: [String]) -> Int {
        lines.filter { $0.contains(" event_id=") || $0.contains(" status=") }.count + lines.map(leftOut).reduce(0, +)
    }

    /// A service whose webhook `receiver` fails every attempt, once six purchases' deliveries
    /// have each reached `outcome` (`retry`, `dead`) in the metrics; its log, and a connection.
    static func sixFailing(to receiver: WebhookReceiver, retryDelays: String, until outcome: String, firstId: Int) throws
        -> (RevenueDotService, Locked<[String]>, LoopbackConnection)
    {
        let fixture = try WebhookDeliveryTests.fixture(url: receiver.url, retryDelays: retryDelays)
        let (service, kept) = try OperationalLogTests.service(fixture)
        let connection = try LoopbackConnection(port: service.port)
        for index in 0..<6 {
            let purchase = try fixture.signer.notification(
                type: "SUBSCRIBED", subtype: "INITIAL_BUY", originalTransactionId: "\(firstId + index)")
            #expect(try connection.postNotification(purchase).status == 200)
        }
        let all = #"revenuedot_webhook_deliveries_total{outcome=""# + outcome + #""} 6"#
        #expect(poll(seconds: 30) { (try? connection.request("GET", "/metrics").text.contains(all)) == true })
        return (service, kept, connection)
    }

    /// Six deliveries fail at once, then die a second later, and nothing comes after: every
    /// failed attempt and every dead letter is a line or in a count, within two seconds or so.
    @Test func failuresAndDeadLettersLeftOutAreSummarised() throws {
        let receiver = try WebhookReceiver { _, _ in 500 }
        defer { receiver.stop() }
        let (service, kept, _) = try Self.sixFailing(to: receiver, retryDelays: "[1]", until: "dead", firstId: 7_400_000_000)
        defer { service.shutdown() }
        let said = poll(seconds: 10) {
            Self.counted(OperationalLogTests.lines(kept, event: "webhook.failed")) == 6
                && Self.counted(OperationalLogTests.lines(kept, event: "webhook.dead_letter")) == 6
        }
        let failed = OperationalLogTests.lines(kept, event: "webhook.failed")
        let dead = OperationalLogTests.lines(kept, event: "webhook.dead_letter")
        #expect(said, "failed: \(failed)\ndead: \(dead)")
        // No line of a kind comes after the burst: what was left out is in a summary of its own.
        // (A host too busy to make the six attempts within a second logs each one instead.)
        func leftOutAny(_ lines: [String]) -> Bool { lines.filter { $0.contains(" event_id=") }.count < 6 }
        if leftOutAny(dead) {
            let summary = try #require(dead.last { !$0.contains(" event_id=") }, "\(dead)")
            #expect(summary.contains(" error webhook.dead_letter more dead letters than one a second"), "\(summary)")
            #expect(summary.hasSuffix(" app=demo webhook=\"\" left_out=\(Self.leftOut(summary))\n"), "\(summary)")
        }
        if leftOutAny(failed) {
            #expect(failed.contains { !$0.contains(" event_id=") && $0.contains(" warning webhook.failed ") }, "\(failed)")
        }
        #expect(leftOutAny(failed) || leftOutAny(dead), "six at once, none left out: \(failed)\n\(dead)")
    }

    /// A flood of refused notifications and then none: the refusals left out are said by a
    /// summary; the next refusal, later, has no count to say.
    @Test func refusalsLeftOutAreSummarised() throws {
        let fixture = try ServerFixture()
        let (service, kept) = try OperationalLogTests.service(fixture, log: #"{"access": false}"#)
        defer { service.shutdown() }
        let connection = try LoopbackConnection(port: service.port)
        for _ in 0..<100 { _ = try connection.request("POST", "/v1/apple/notifications/demo", body: Data("{}".utf8)) }
        let said = poll(seconds: 10) { Self.counted(OperationalLogTests.lines(kept, event: "notification.refused")) == 100 }
        let flood = OperationalLogTests.lines(kept, event: "notification.refused")
        #expect(said, "\(flood)")
        #expect(flood.count < 60, "\(flood.count) lines")
        // Every refusal is a line or in a count (`said`); a summary says those left out after the
        // last line written. (A host too busy to refuse more than ten in the flood's last second
        // leaves none to summarise.)
        if let summary = flood.last(where: { !$0.contains(" status=") }) {
            #expect(summary.contains(" warning notification.refused more refusals than 10 a second"), "\(summary)")
            #expect(!summary.contains(" app=") && Self.leftOut(summary) > 0, "\(summary)")
        }
        #expect(try connection.request("POST", "/v1/apple/notifications/demo", body: Data("{}".utf8)).status == 400)
        let next = OperationalLogTests.lines(kept, event: "notification.refused").dropFirst(flood.count)
        #expect(next.count == 1 && Self.leftOut(next.first ?? "") == 0, "\(next)")
    }

    /// A flood of refusals just before the server stops: the count left out is said before the
    /// log ends, not lost with the summary's timer.
    @Test func refusalsLeftOutAreSaidAtShutdown() throws {
        let fixture = try ServerFixture()
        let (service, kept) = try OperationalLogTests.service(fixture, log: #"{"access": false}"#)
        let connection = try LoopbackConnection(port: service.port)
        for _ in 0..<50 { _ = try connection.request("POST", "/v1/apple/notifications/demo", body: Data("{}".utf8)) }
        connection.close()
        service.shutdown()
        let lines = OperationalLogTests.lines(kept, event: "notification.refused")
        #expect(Self.counted(lines) == 50, "\(lines)")
    }

    /// Failed attempts left out of the log just before the server stops are said as it stops.
    @Test func failuresLeftOutAreSaidAtShutdown() throws {
        let receiver = try WebhookReceiver { _, _ in 500 }
        defer { receiver.stop() }
        let (service, kept, connection) = try Self.sixFailing(
            to: receiver, retryDelays: "[600]", until: "retry", firstId: 7_500_000_000)
        connection.close()
        service.shutdown()
        let failed = OperationalLogTests.lines(kept, event: "webhook.failed")
        #expect(Self.counted(failed) == 6, "\(failed)")
    }
}

extension LeftOutLinesTests {
    /// Connections a stranger opens, sends a request line the server cannot take, and drops:
    /// libmicrohttpd says something of each, ten lines a second at most, the rest counted.
    @Test func httpErrorsAreLimitedAndCounted() throws {
        let fixture = try ServerFixture()
        let (service, kept) = try OperationalLogTests.service(fixture, log: #"{"access": false}"#)
        for _ in 0..<100 {
            let connection = try LoopbackConnection(port: service.port)
            try connection.sendRaw(Data("GET / HTTP/2.0\r\nHost: x\r\n\r\n".utf8))
            _ = try? connection.readResponse()
            connection.close()
        }
        let said = poll(seconds: 10) {
            let lines = OperationalLogTests.lines(kept, event: "http.error")
            return lines.count + lines.map(Self.leftOut).reduce(0, +) >= 100
        }
        service.shutdown()
        let lines = OperationalLogTests.lines(kept, event: "http.error")
        #expect(said, "\(lines.count) lines: \(lines.prefix(3))")
        #expect(lines.count < 100, "\(lines.count) lines")
        #expect(lines.contains { Self.leftOut($0) > 0 }, "\(lines.suffix(3))")
    }
}
